import type { Db, Sql } from "@gw/db";
import type { AccountDirectory } from "../accounts/directory.ts";
import { contactKeyOf } from "../contacts/contacts.ts";
import { parseRecipient } from "../contacts/recipient.ts";

export const WINDOW_MS = 24 * 3_600_000;

export interface WindowState {
  open: boolean;
  expiresAt: Date | null;
  lastInboundAt: Date | null;
}

/**
 * The 24 h window of a contact (its key: contacts/contactKeyOf) on a business number (spec 4.3): only messages FROM
 * the contact count.
 */
export async function getWindow(
  deps: { db: Db },
  input: { phoneNumberId: string; contact: string; now?: Date },
): Promise<WindowState> {
  const now = input.now ?? new Date();
  const { rows } = await deps.db.sql.query<{ expires_at: Date; last_inbound_at: Date }>({
    name: "contact-window",
    text: `SELECT expires_at, last_inbound_at FROM contact_windows WHERE phone_number_id = $1 AND contact = $2`,
    values: [input.phoneNumberId, input.contact],
  });
  return windowOf(rows[0], now);
}

/** The window as the contract spells it (GET /window, the conversation's detail, Conversas): ISO times or null. */
export function windowView(window: WindowState): {
  open: boolean;
  expires_at: string | null;
  last_inbound_at: string | null;
} {
  return {
    open: window.open,
    expires_at: window.expiresAt?.toISOString() ?? null,
    last_inbound_at: window.lastInboundAt?.toISOString() ?? null,
  };
}

function windowOf(row: { expires_at: Date | null; last_inbound_at: Date | null } | undefined, now: Date): WindowState {
  if (!row?.expires_at) return { open: false, expiresAt: null, lastInboundAt: null };
  return {
    open: row.expires_at.getTime() > now.getTime(),
    expiresAt: row.expires_at,
    lastInboundAt: row.last_inbound_at,
  };
}

/**
 * The recipient's contact key (contacts/contactKeyOf) and its 24 h window on the number, in one statement: a free-text
 * send reads both before its reservation (one round trip fewer, docs/performance.md) and decides on the window after
 * it, where getWindow's answer was decided.
 */
export async function contactKeyAndWindow(
  sql: Sql,
  input: { accountId: string; identifier: string; phoneNumberId: string; now?: Date },
): Promise<{ contactKey: string; window: WindowState }> {
  const { rows } = await sql.query<{ key: string; expires_at: Date | null; last_inbound_at: Date | null }>({
    name: "contact-key-and-window",
    text: `SELECT k.key, w.expires_at, w.last_inbound_at
      FROM (SELECT COALESCE(gateway_contact_key($1::uuid, $2), $2) AS key) AS k
      LEFT JOIN contact_windows w ON w.phone_number_id = $3 AND w.contact = k.key`,
    values: [input.accountId, input.identifier, input.phoneNumberId],
  });
  const row = rows[0];
  return { contactKey: row?.key ?? input.identifier, window: windowOf(row, input.now ?? new Date()) };
}

/**
 * GET /public/v1/window/{to} (spec 4.3). An account without any business number has no open window with
 * anyone (`open: false`, which the spec says is not an error). Returns null when `phoneNumberId` is given but
 * is not one of the account's numbers: the route answers that as a validation error of the query.
 */
export async function windowStatus(
  deps: { db: Db; directory: AccountDirectory },
  input: { accountId: string; to: string; phoneNumberId?: string | undefined },
) {
  const number = await deps.directory.resolveNumber(input.accountId, input.phoneNumberId);
  if (!number && input.phoneNumberId) return null;
  // A phone as its digits (an invalid one too: the answer is simply closed), a BSUID as given.
  const recipient = parseRecipient(input.to);
  const identifier = recipient.identifier;
  const window = number
    ? await getWindow(deps, {
        phoneNumberId: number.phoneNumberId,
        contact: await contactKeyOf(deps.db.sql, { accountId: input.accountId, identifier }),
      })
    : { open: false, expiresAt: null, lastInboundAt: null };
  return { to: identifier, phone_number_id: number?.phoneNumberId ?? null, ...windowView(window) };
}
