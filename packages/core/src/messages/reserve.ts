import type { Sql } from "@gw/db";
import { fingerprintParts, reservationInsert, type FingerprintSource } from "../idempotency/idempotency.ts";

/**
 * A send's one statement before the provider (docs/performance.md, "Fifth pass"): the recipient's contact key, its
 * window on the number and whether it stopped marketing messages, read together; and, when every check the send asked
 * for passes, its Idempotency-Key reserved and marked as reaching the provider, in the same round trip. The send has
 * taken its number's turn already, so nothing but the provider call lies between the reservation and that call: the
 * key is marked as called at once (a process that dies now may have sent, and the key is settled as unconfirmed, never
 * sent twice). A key taken already, a check that fails or a refusal decided before (`proceed` false) reserves nothing:
 * the caller then looks at the key the long way (replay, in flight, conflict) before refusing.
 */
export interface ReserveSendInput {
  accountId: string;
  /** As the integrator named the recipient: a phone's digits or a BSUID. */
  identifier: string;
  /** The number the send goes out from; null when the account has none (the window is then closed). */
  phoneNumberId: string | null;
  /** False when the send is refused already (no number, the catalogue): read, but reserve nothing. */
  proceed: boolean;
  /** Free-form kinds need the contact's window open on the number. */
  needsWindow: boolean;
  /** Marketing templates are refused to a contact on the account's suppression list. */
  checkSuppression: boolean;
  /** The key to reserve, if the call has one, with its fingerprint's source and retention. */
  key: {
    key: string;
    fingerprint: FingerprintSource | null;
    requestId: string;
    untilSettled: boolean;
    ttlHours: number;
    owner: string | null;
  } | null;
}

export interface ReservedSend {
  contactKey: string;
  windowOpen: boolean;
  suppressed: boolean;
  /** The reservation made (marked as calling the provider); null when none was (see ReserveSendInput). */
  reservationId: string | null;
}

const RESERVE_SEND = `
WITH contact AS (
  SELECT COALESCE(gateway_contact_key($1::uuid, $2), $2) AS key
), checked AS (
  SELECT c.key,
    EXISTS (SELECT 1 FROM contact_windows w
      WHERE w.phone_number_id = $3 AND w.contact = c.key AND w.expires_at > now()) AS window_open,
    $5::boolean AND EXISTS (SELECT 1 FROM contact_suppressions s
      WHERE s.account_id = $1::uuid AND s.contact = c.key) AS suppressed,
    CASE WHEN $10::text IS NOT NULL THEN $10
      WHEN $8::text IS NULL THEN NULL
      ELSE encode(sha256(convert_to($8 || to_json(c.key)::text || $9, 'UTF8')), 'hex') END AS fingerprint
  FROM contact c
), reserved AS (
  ${reservationInsert({
    accountId: "$1::uuid",
    key: "$7",
    fingerprint: "k.fingerprint",
    requestId: "$11",
    ttlHours: "$12",
    untilSettled: "$13",
    owner: "$14::uuid",
    providerCalledAt: "now()",
    from: {
      list: "checked k",
      where: "$7::text IS NOT NULL AND $6::boolean AND (NOT $4::boolean OR k.window_open) AND NOT k.suppressed",
    },
  })}
)
SELECT k.key, k.window_open, k.suppressed, (SELECT id FROM reserved) AS reservation_id FROM checked k`;

export async function reserveSend(sql: Sql, input: ReserveSendInput): Promise<ReservedSend> {
  const parts = input.key?.fingerprint ? fingerprintParts(input.key.fingerprint) : null;
  const { rows } = await sql.query<{
    key: string;
    window_open: boolean;
    suppressed: boolean;
    reservation_id: string | null;
  }>({
    name: "reserve-send",
    text: RESERVE_SEND,
    values: [
      input.accountId,
      input.identifier,
      input.phoneNumberId,
      input.needsWindow,
      input.checkSuppression,
      input.proceed,
      input.key?.key ?? null,
      parts && "before" in parts ? parts.before : null,
      parts && "after" in parts ? parts.after : null,
      parts && "whole" in parts ? parts.whole : null,
      input.key?.requestId ?? null,
      input.key?.ttlHours ?? 0,
      input.key?.untilSettled ?? false,
      input.key?.owner ?? null,
    ],
  });
  const row = rows[0];
  return {
    contactKey: row?.key ?? input.identifier,
    windowOpen: row?.window_open ?? false,
    suppressed: row?.suppressed ?? false,
    reservationId: row?.reservation_id ?? null,
  };
}
