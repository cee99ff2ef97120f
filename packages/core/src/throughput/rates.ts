import { inTransaction, type Db, type Sql } from "@gw/db";
import { announceNumberChange } from "../accounts/directory.ts";
import { auditAction, recordAudit, type Actor } from "../audit/audit.ts";

/** Meta's messaging rates: 80/s by default, up to 1 000/s; 20/s for a number shared with the WhatsApp Business app. */
export const MIN_MESSAGING_RATE = 1;
export const MAX_MESSAGING_RATE = 1_000;

/** A rate outside what Meta allows; its message is a Portuguese sentence for the operator. */
export class MessagingRateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MessagingRateError";
  }
}

export interface NumberRateView {
  phone_number_id: string;
  account_id: string;
  messaging_rate_per_second: number;
  previous_rate_per_second: number;
}

/**
 * Set the number's messaging rate (what Meta granted it). Every pod paces the number by it as soon as the change
 * commits (its cached copy of the number is dropped, `announceNumberChange`; NUMBER_CACHE_TTL_MS is the fallback).
 * Null when the number is not connected to any account.
 */
export async function setNumberMessagingRate(
  deps: { db: Db },
  input: { phoneNumberId: string; ratePerSecond: number; actor: Actor },
): Promise<NumberRateView | null> {
  const rate = input.ratePerSecond;
  if (!Number.isInteger(rate) || rate < MIN_MESSAGING_RATE || rate > MAX_MESSAGING_RATE) {
    throw new MessagingRateError(
      `A vazão deve ser um número inteiro de mensagens por segundo entre ${MIN_MESSAGING_RATE} e ${MAX_MESSAGING_RATE} (a Meta concede 80 por padrão, até 1000; 20 para um número compartilhado com o app WhatsApp Business).`,
    );
  }
  return inTransaction(deps.db.sql, (client) => applyMessagingRate(client, input));
}

// The rate before the change is read in the same statement (the CTE sees the row as it was).
const SET_RATE = `WITH before AS (
    SELECT messaging_rate_per_second AS rate FROM business_numbers WHERE phone_number_id = $1 FOR UPDATE)
  UPDATE business_numbers n SET messaging_rate_per_second = $2 FROM before WHERE n.phone_number_id = $1
  RETURNING n.account_id::text AS account_id, n.messaging_rate_per_second AS rate, before.rate AS previous`;

/**
 * The rate change inside the caller's transaction (the operator's `number set-rate`, Meta's THROUGHPUT_UPGRADE):
 * sets it, audits `<origin>.number.messaging_rate_changed` and announces it to every pod's directory. `details`
 * are added to the audit entry's.
 */
export async function applyMessagingRate(
  sql: Sql,
  input: { phoneNumberId: string; ratePerSecond: number; actor: Actor; details?: Record<string, string | number> },
): Promise<NumberRateView | null> {
  const { rows } = await sql.query<{ account_id: string; rate: number; previous: number }>({
    name: "number-set-rate",
    text: SET_RATE,
    values: [input.phoneNumberId, input.ratePerSecond],
  });
  const row = rows[0];
  if (!row) return null;
  await recordAudit(sql, {
    accountId: row.account_id,
    actor: input.actor,
    action: auditAction(input.actor, "number.messaging_rate_changed"),
    target: `number:${input.phoneNumberId}`,
    details: { from: row.previous, to: row.rate, ...input.details },
  });
  await announceNumberChange(sql, row.account_id);
  return {
    phone_number_id: input.phoneNumberId,
    account_id: row.account_id,
    messaging_rate_per_second: row.rate,
    previous_rate_per_second: row.previous,
  };
}
