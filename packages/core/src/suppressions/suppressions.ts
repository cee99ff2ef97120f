import type { Sql } from "@gw/db";
import { ApiError } from "@gw/errors";
import { isBsuid } from "@gw/contracts";
import { normalizePhone } from "../phones/normalize.ts";

/**
 * The account's suppression list: contacts who asked to stop marketing messages. Marketing templates to them are
 * refused before Meta (messages/send.ts); utility and authentication templates and free text still go.
 * `user_preferences`: Meta's webhook (stop); `provider_131050`: Meta refused a marketing template with 131050;
 * `operator`: set by the account's staff. A contact who resumes (Meta's webhook) leaves the list, unless an
 * operator put them there.
 */
export type SuppressionReason = "user_preferences" | "provider_131050" | "operator";
export const SUPPRESSION_REASONS: readonly SuppressionReason[] = ["user_preferences", "provider_131050", "operator"];

/** The pool (`deps.db`) or, inside a caller's transaction, its client: `{ db: { sql: client } }`. */
export interface SuppressionDeps {
  db: { sql: Sql };
}

export interface SuppressionView {
  contact: string;
  reason: SuppressionReason;
  created_at: string;
}

/** A preference change to apply inside the provider webhook's transaction. */
export interface PreferenceChange {
  accountId: string;
  /** The contact's key (contacts/learnContacts), whichever of its identifiers Meta reported. */
  contactKey: string;
  value: "stop" | "resume";
  /** Meta's `timestamp`, else when the webhook was received. */
  at: Date;
}

/**
 * An identifier as contacts are looked up by it: a BSUID as given; a phone's normalized digits (a 12-digit
 * Brazilian WhatsApp id is the 13-digit number the integrator sends to), else its digits, else the input. The
 * statements below map it to its contact's key (`gateway_contact_key`), so a suppression holds for every identifier
 * of the contact.
 */
export function suppressionContact(contact: string): string {
  if (isBsuid(contact)) return contact;
  const phone = normalizePhone(contact);
  return phone.valid ? phone.digits : phone.digits || contact;
}

/**
 * `$2` as the contact key: a key as it is (`keyed`, $3), an identifier through `gateway_contact_key`. A key must not
 * be looked up as an identifier: after a change of number the contact's key is its OLD phone, which as an identifier
 * is retired (and may be someone else's later), so the lookup would miss the contact's own opt-out.
 */
const CONTACT_KEY_OF_INPUT = `CASE WHEN $3::boolean THEN $2 ELSE gateway_contact_key($1::uuid, $2) END`;

/** $1 to $3 of CONTACT_KEY_OF_INPUT: the account, the contact (an identifier normalised, or the key), `keyed`. */
function contactValues(input: { accountId: string; contact: string; keyed?: boolean }): [string, string, boolean] {
  const keyed = input.keyed === true;
  return [input.accountId, keyed ? input.contact : suppressionContact(input.contact), keyed];
}

/** Adds the contact to the list; a contact already on it keeps the reason it has. True when newly added. */
export async function suppressContact(
  deps: SuppressionDeps,
  input: { accountId: string; contact: string; reason: SuppressionReason; at?: Date; keyed?: boolean },
): Promise<boolean> {
  const { rowCount } = await deps.db.sql.query({
    name: "suppress-contact",
    text: `INSERT INTO contact_suppressions (account_id, contact, reason, created_at)
      VALUES ($1::uuid, ${CONTACT_KEY_OF_INPUT}, $4, COALESCE($5::timestamptz, now()))
      ON CONFLICT (account_id, contact) DO NOTHING`,
    values: [...contactValues(input), input.reason, input.at ?? null],
  });
  return (rowCount ?? 0) > 0;
}

/** Removes the contact from the list, whatever the reason (an operator's action). True when it was on it. */
export async function unsuppressContact(
  deps: SuppressionDeps,
  input: { accountId: string; contact: string },
): Promise<boolean> {
  const { rowCount } = await deps.db.sql.query({
    name: "unsuppress-contact",
    text: `DELETE FROM contact_suppressions WHERE account_id = $1::uuid AND contact = gateway_contact_key($1::uuid, $2)`,
    values: [input.accountId, suppressionContact(input.contact)],
  });
  return (rowCount ?? 0) > 0;
}

/** One primary-key lookup; the send path asks only for marketing templates. */
export async function isSuppressed(
  deps: SuppressionDeps,
  input: { accountId: string; contact: string; keyed?: boolean },
): Promise<boolean> {
  const { rows } = await deps.db.sql.query({
    name: "is-suppressed",
    text: `SELECT 1 FROM contact_suppressions WHERE account_id = $1::uuid AND contact = ${CONTACT_KEY_OF_INPUT}`,
    values: contactValues(input),
  });
  return rows.length > 0;
}

// Stop: on the list with Meta's time; a later stop refreshes an earlier one, an operator's entry is left alone.
const STOP = `
INSERT INTO contact_suppressions (account_id, contact, reason, created_at)
VALUES ($1::uuid, $2, 'user_preferences', $3::timestamptz)
ON CONFLICT (account_id, contact) DO UPDATE SET reason = EXCLUDED.reason, created_at = EXCLUDED.created_at
  WHERE contact_suppressions.reason <> 'operator' AND contact_suppressions.created_at < EXCLUDED.created_at`;

// Resume: off the list, unless an operator put the contact there or a stop (or 131050) newer than the resume did
// (Meta redelivers a refused webhook later, so an older resume can arrive after a newer stop).
const RESUME = `
DELETE FROM contact_suppressions
WHERE account_id = $1::uuid AND contact = $2 AND reason <> 'operator' AND created_at <= $3::timestamptz`;

/**
 * Meta's `user_preferences` changes, inside the provider webhook's transaction (`sql` is its client), in the order
 * given. Returns how many changed the list.
 */
export async function applyUserPreferences(sql: Sql, changes: readonly PreferenceChange[]): Promise<number> {
  let changed = 0;
  for (const change of changes) {
    const { rowCount } = await sql.query({
      name: change.value === "stop" ? "user-preference-stop" : "user-preference-resume",
      text: change.value === "stop" ? STOP : RESUME,
      values: [change.accountId, change.contactKey, change.at],
    });
    changed += rowCount ?? 0;
  }
  return changed;
}

const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)_(.+)$/;

/**
 * The account's suppressed contacts, newest first, with keyset paging on (created_at, contact): `cursor` is the
 * previous page's `next_cursor`.
 */
export async function listSuppressions(
  deps: SuppressionDeps,
  input: { accountId: string; cursor?: string | null | undefined; limit?: number | undefined },
): Promise<{ suppressions: SuppressionView[]; next_cursor: string | null }> {
  const limit = Math.min(Math.max(input.limit ?? 50, 1), 200);
  let after: RegExpExecArray | null = null;
  if (input.cursor) {
    after = CURSOR.exec(input.cursor);
    if (!after)
      throw new ApiError("bad_request", { message: "O cursor de paginação da lista de bloqueio é inválido." });
  }
  const { rows } = await deps.db.sql.query<{ contact: string; reason: SuppressionReason; created_at: Date }>({
    name: "list-suppressions",
    // One more than asked tells whether another page exists.
    text: `SELECT contact, reason, created_at FROM contact_suppressions
      WHERE account_id = $1::uuid AND ($2::timestamptz IS NULL OR (created_at, contact) < ($2::timestamptz, $3))
      ORDER BY created_at DESC, contact DESC
      LIMIT $4`,
    values: [input.accountId, after?.[1] ?? null, after?.[2] ?? "", limit + 1],
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    suppressions: page.map((row) => ({
      contact: row.contact,
      reason: row.reason,
      created_at: row.created_at.toISOString(),
    })),
    next_cursor: rows.length > limit && last ? `${last.created_at.toISOString()}_${last.contact}` : null,
  };
}
