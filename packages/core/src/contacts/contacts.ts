import type { Sql } from "@gw/db";
import type { MetaIdentityChange, MetaUserRef } from "@gw/meta";
import { normalizePhone } from "../phones/normalize.ts";

/**
 * Contacts (docs/decisions.md, "Contacts: phone numbers and BSUIDs"). A WhatsApp user of an account is a phone
 * number, a business-scoped user id (BSUID), or both; what Meta shares changes over time (a username user shares no
 * phone; a user changes number, and then BSUID). Every table that keys a contact holds its KEY: the first identifier
 * it was known by, which never changes. The identifiers seen with it point at the key (contact_identifiers), learnt
 * from every webhook that names a user; two keys that turn out to be one person are merged. The rules are SQL
 * functions (migration 20261128000000_contacts), so a webhook learns all its users in one statement, atomically.
 */

/** A user's phone as the gateway keys it: normalized digits (a 12-digit Brazilian id gets its 9th digit). */
function phoneKey(phone: string | null): string | null {
  if (phone === null) return null;
  const normalized = normalizePhone(phone);
  return normalized.valid ? normalized.digits : phone;
}

/** A user to learn, for an account. */
export interface ContactSighting {
  accountId: string;
  user: MetaUserRef;
  /**
   * Whether the caller keys rows by the answer in the same transaction (an inbound message, a preference): then the
   * identifiers of a user known already are read under a share lock, so a merge of that contact in flight is waited
   * for. A status's recipient keys nothing (false): learning a known user is then a plain read. Absent: true.
   */
  keyed?: boolean;
}

/**
 * Learn every user a webhook named (inside its transaction): each becomes (or stays) one contact with all the
 * identifiers seen; returns each sighting's contact key, in order (null for one that names no identifier).
 */
export async function learnContacts(sql: Sql, sightings: readonly ContactSighting[]): Promise<(string | null)[]> {
  if (sightings.length === 0) return [];
  const { rows } = await sql.query<{ key: string | null; ord: number }>({
    name: "learn-contacts",
    // In order, one after the other: a later sighting of the same user sees what an earlier one attached.
    text: `SELECT t.ord, gateway_learn_contact(t.account_id, t.phone, t.bsuid, t.parent, t.username, t.name, t.keyed) AS key
      FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::boolean[])
        AS t(account_id, phone, bsuid, parent, username, name, ord, keyed)
      ORDER BY t.ord`,
    values: [
      sightings.map((s) => s.accountId),
      sightings.map((s) => phoneKey(s.user.phone)),
      sightings.map((s) => s.user.bsuid),
      sightings.map((s) => s.user.parentBsuid),
      sightings.map((s) => s.user.username),
      sightings.map((s) => s.user.name),
      sightings.map((_, index) => index),
      sightings.map((s) => s.keyed ?? true),
    ],
  });
  const keys: (string | null)[] = sightings.map(() => null);
  for (const row of rows) keys[row.ord] = row.key;
  return keys;
}

/** A change of phone number or of BSUID, for an account. */
export interface IdentityChangeInput {
  accountId: string;
  change: MetaIdentityChange;
}

/**
 * Re-key contacts after a change of phone or of BSUID (`user_id_update`, `system` user_changed_number or
 * user_changed_user_id): the contact the previous identifiers name keeps its key, so its window, suppression and
 * conversation history stay, and gains the current ones; the previous ones retire. Idempotent; a change about no
 * one known is learnt as a new contact (never dropped). Returns how many changes were applied.
 */
export async function applyIdentityChanges(sql: Sql, changes: readonly IdentityChangeInput[]): Promise<number> {
  for (const { accountId, change } of changes) {
    await sql.query({
      name: "change-contact-identity",
      text: `SELECT gateway_change_identity($1::uuid, $2, $3, $4, $5, $6, $7, $8)`,
      values: [
        accountId,
        phoneKey(change.previous.phone),
        change.previous.bsuid,
        change.previous.parentBsuid,
        phoneKey(change.current.phone),
        change.current.bsuid,
        change.current.parentBsuid,
        change.name,
      ],
    });
  }
  return changes.length;
}

/** Each identifier's contact key, in one round trip (a campaign's 100 000 rows). */
export async function contactKeysOf(
  sql: Sql,
  input: { accountId: string; identifiers: readonly string[] },
): Promise<Map<string, string>> {
  const identifiers = [...new Set(input.identifiers)];
  if (identifiers.length === 0) return new Map();
  const { rows } = await sql.query<{ identifier: string; key: string }>({
    name: "contact-keys-of",
    text: `SELECT i AS identifier, gateway_contact_key($1::uuid, i) AS key FROM unnest($2::text[]) AS i`,
    values: [input.accountId, identifiers],
  });
  return new Map(rows.map((row) => [row.identifier, row.key]));
}

/** The key of the contact `identifier` names (a phone's digits or a BSUID): the identifier itself when never seen. */
export async function contactKeyOf(sql: Sql, input: { accountId: string; identifier: string }): Promise<string> {
  const { rows } = await sql.query<{ key: string }>({
    name: "contact-key-of",
    text: `SELECT gateway_contact_key($1::uuid, $2) AS key`,
    values: [input.accountId, input.identifier],
  });
  return rows[0]?.key ?? input.identifier;
}

export interface ContactView {
  key: string;
  /** Digits with the country code; null when Meta never shared it. */
  phone: string | null;
  bsuid: string | null;
  parent_bsuid: string | null;
  username: string | null;
  name: string | null;
}

/** The contacts with these keys (those known in `contacts`), by key. */
export async function contactsByKey(
  sql: Sql,
  input: { accountId: string; keys: readonly string[] },
): Promise<Map<string, ContactView>> {
  if (input.keys.length === 0) return new Map();
  const { rows } = await sql.query<ContactView>({
    name: "contacts-by-key",
    text: `SELECT key, phone, bsuid, parent_bsuid, username, name FROM contacts
      WHERE account_id = $1::uuid AND key = ANY($2::text[])`,
    values: [input.accountId, [...new Set(input.keys)]],
  });
  return new Map(rows.map((row) => [row.key, row]));
}
