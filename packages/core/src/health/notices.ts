import type { AccountUpdateData } from "@gw/contracts";
import { inTransaction, type Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import { ACCOUNT_EVENT_FIELDS, type AccountEventField } from "@gw/meta";
import { auditAction, recordAudit, type Actor } from "../audit/audit.ts";

/**
 * The account's health events as the panel shows them ("Avisos da conta"): every stored event, newest first, with
 * what the gateway did about it and whether this user read it (read per user, like template notices).
 */

export { ACCOUNT_EVENT_FIELDS };
export type { AccountEventField };

export interface AccountEventView {
  id: number;
  waba_id: string;
  field: string;
  /** Meta's `value.event`, unknown values included; null when the field carries none. */
  event: string | null;
  /** The number a phone_number_quality_update named, with its display number; null otherwise. */
  phone_number_id: string | null;
  display_number: string | null;
  /** Meta's value as sent. */
  value: Record<string, unknown>;
  /** What the gateway did (null while it was being applied). */
  effects: AccountUpdateData["effects"] | null;
  /** Meta's time, else when the gateway received it. */
  occurred_at: string;
  received_at: string;
  read: boolean;
  read_at: string | null;
}

interface EventRow {
  id: string;
  waba_id: string;
  field: string;
  event: string | null;
  phone_number_id: string | null;
  display_number: string | null;
  value: Record<string, unknown>;
  effects: AccountUpdateData["effects"] | null;
  occurred_at: Date | null;
  received_at: Date;
  read_at: Date | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function checkIds(input: { accountId: string; userId: string }): void {
  // The panel passes its session's account and user; anything else names nobody (and must not reach a ::uuid cast).
  if (!UUID.test(input.accountId) || !UUID.test(input.userId))
    throw new ApiError("not_found", { message: "O usuário não foi encontrado nesta conta." });
}

function view(row: EventRow): AccountEventView {
  return {
    id: Number(row.id),
    waba_id: row.waba_id,
    field: row.field,
    event: row.event,
    phone_number_id: row.phone_number_id,
    display_number: row.display_number,
    value: row.value,
    effects: row.effects,
    occurred_at: (row.occurred_at ?? row.received_at).toISOString(),
    received_at: row.received_at.toISOString(),
    read: row.read_at !== null,
    read_at: row.read_at?.toISOString() ?? null,
  };
}

/**
 * The account's health events, newest first, with whether `userId` read each. `cursor` is the `next_cursor` of the
 * page before; `unreadOnly` keeps the ones this user has not read; `field` keeps one of Meta's fields. A user of
 * another account sees nothing.
 */
export async function listAccountEvents(
  deps: { db: Db },
  input: {
    accountId: string;
    userId: string;
    unreadOnly?: boolean | undefined;
    field?: AccountEventField | undefined;
    cursor?: string | null | undefined;
    limit: number;
  },
): Promise<{ events: AccountEventView[]; next_cursor: string | null }> {
  checkIds(input);
  const cursor = input.cursor ?? "";
  if (cursor !== "" && !/^\d{1,18}$/.test(cursor))
    throw new ApiError("bad_request", { message: "O cursor de paginação dos avisos é inválido." });
  const limit = Math.max(1, Math.min(200, Math.trunc(input.limit)));
  const { rows } = await deps.db.sql.query<EventRow>({
    name: "list-account-events",
    text: `SELECT e.id::text, e.waba_id, e.field, e.event, e.phone_number_id, n.display_number, e.value, e.effects,
        e.occurred_at, e.received_at, r.read_at
      FROM account_events e
      LEFT JOIN business_numbers n ON n.phone_number_id = e.phone_number_id AND n.account_id = e.account_id
      LEFT JOIN account_event_reads r ON r.event_id = e.id AND r.user_id = $2::uuid
      WHERE e.account_id = $1::uuid AND ($3::bigint IS NULL OR e.id < $3::bigint)
        AND EXISTS (SELECT 1 FROM panel_users u WHERE u.id = $2::uuid AND u.account_id = $1::uuid)
        AND (NOT $4::boolean OR r.event_id IS NULL) AND ($5::text IS NULL OR e.field = $5::text)
      ORDER BY e.id DESC
      LIMIT $6`,
    // One more than asked tells whether another page exists.
    values: [
      input.accountId,
      input.userId,
      cursor === "" ? null : cursor,
      input.unreadOnly === true,
      input.field ?? null,
      limit + 1,
    ],
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { events: page.map(view), next_cursor: rows.length > limit && last ? last.id : null };
}

/** How many of the account's health events `userId` has not read (the panel's badge). */
export async function countUnreadAccountEvents(
  deps: { db: Db },
  input: { accountId: string; userId: string },
): Promise<number> {
  checkIds(input);
  const { rows } = await deps.db.sql.query<{ count: number }>({
    name: "count-unread-account-events",
    text: `SELECT count(*)::int AS count FROM account_events e
      WHERE e.account_id = $1::uuid
        AND EXISTS (SELECT 1 FROM panel_users u WHERE u.id = $2::uuid AND u.account_id = $1::uuid)
        AND NOT EXISTS (SELECT 1 FROM account_event_reads r WHERE r.event_id = e.id AND r.user_id = $2::uuid)`,
    values: [input.accountId, input.userId],
  });
  return rows[0]?.count ?? 0;
}

// The event and the user must both belong to the account; marking twice keeps the first read time.
const MARK_READ = `
WITH target AS (
  SELECT e.id AS event_id, u.id AS user_id FROM account_events e
  JOIN panel_users u ON u.account_id = e.account_id AND u.id = $3::uuid
  WHERE e.id = $1::bigint AND e.account_id = $2::uuid
), marked AS (
  INSERT INTO account_event_reads (event_id, user_id) SELECT event_id, user_id FROM target
  ON CONFLICT (event_id, user_id) DO NOTHING
  RETURNING read_at
)
SELECT EXISTS (SELECT 1 FROM target) AS found,
  COALESCE((SELECT read_at FROM marked),
    (SELECT r.read_at FROM account_event_reads r JOIN target t USING (event_id, user_id))) AS read_at`;

/** Marks one event read for `userId`; an event or user of another account is `not_found`, like a missing id. */
export async function markAccountEventRead(
  deps: { db: Db },
  input: { accountId: string; userId: string; eventId: number | string; actor: Actor },
): Promise<{ id: number; read_at: string }> {
  checkIds(input);
  const eventId = String(input.eventId);
  const notFound = new ApiError("not_found", { message: "O aviso da conta não foi encontrado nesta conta." });
  if (!/^\d{1,18}$/.test(eventId)) throw notFound;
  return inTransaction(deps.db.sql, async (client) => {
    const { rows } = await client.query<{ found: boolean; read_at: Date | null }>({
      name: "mark-account-event-read",
      text: MARK_READ,
      values: [eventId, input.accountId, input.userId],
    });
    const row = rows[0];
    if (!row?.found || !row.read_at) throw notFound;
    await recordAudit(client, {
      accountId: input.accountId,
      actor: input.actor,
      action: auditAction(input.actor, "account_event.read"),
      target: `account_event:${eventId}`,
    });
    return { id: Number(eventId), read_at: row.read_at.toISOString() };
  });
}

/** Marks every health event of the account read for `userId`; returns how many were unread. */
export async function markAllAccountEventsRead(
  deps: { db: Db },
  input: { accountId: string; userId: string; actor: Actor },
): Promise<number> {
  checkIds(input);
  return inTransaction(deps.db.sql, async (client) => {
    const { rowCount } = await client.query({
      name: "mark-all-account-events-read",
      text: `INSERT INTO account_event_reads (event_id, user_id)
        SELECT e.id, u.id FROM account_events e
        JOIN panel_users u ON u.account_id = e.account_id AND u.id = $2::uuid
        WHERE e.account_id = $1::uuid
        ON CONFLICT (event_id, user_id) DO NOTHING`,
      values: [input.accountId, input.userId],
    });
    const marked = rowCount ?? 0;
    if (marked > 0)
      await recordAudit(client, {
        accountId: input.accountId,
        actor: input.actor,
        action: auditAction(input.actor, "account_event.read_all"),
        details: { count: marked },
      });
    return marked;
  });
}
