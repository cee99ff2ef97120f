import { inTransaction, type Db, type Sql } from "@gw/db";
import { addDays, dayStartSql, LEDGER_TIME_ZONE, saoPauloDay, SEND_DAY_SQL } from "./days.ts";

/** The one row of pricing_rollup_state. */
const STATE_ID = "messages";

/**
 * Closed days rolled again at each new day: Meta may report a message's pricing on its `delivered` status, days
 * after the send when the phone was off. Pricing reported later than this is missing from the rollup (the live
 * days never miss it).
 */
export const DEFAULT_REROLL_DAYS = 7;

/** Days of one account aggregated by one statement (a bounded transaction on a first run over a long history). */
const CHUNK_DAYS = 31;

/** The first day the rollup has not reached (every day before it is rolled for every account); null before any. */
export async function readRolledBefore(sql: Sql): Promise<string | null> {
  const { rows } = await sql.query<{ rolled_before: string }>({
    name: "pricing-rollup-state",
    text: `SELECT rolled_before::text AS rolled_before FROM pricing_rollup_state WHERE id = $1`,
    values: [STATE_ID],
  });
  return rows[0]?.rolled_before ?? null;
}

const CLEAR_DAYS = `DELETE FROM message_pricing_days WHERE account_id = $1::uuid AND day >= $2::date AND day <= $3::date`;
const ROLL_DAYS = `INSERT INTO message_pricing_days (account_id, day, phone_number_id, category, pricing_type, messages,
    failed)
  SELECT m.account_id, ${SEND_DAY_SQL}, m.phone_number_id,
    COALESCE(m.pricing->>'category', ''), COALESCE(m.pricing->>'type', ''), count(*)::int,
    (count(*) FILTER (WHERE m.status = 'failed'))::int
  FROM messages m
  WHERE m.account_id = $1::uuid AND m.pricing IS NOT NULL
    AND m.created_at >= ${dayStartSql("$2")} AND m.created_at < ${dayStartSql("($3::date + 1)")}
  GROUP BY 1, 2, 3, 4, 5`;

interface AccountSpan {
  id: string;
  first_day: string | null;
  last_day: string | null;
}

export interface RollupResult {
  /** False when the rollup was already up to date (today's run was done). */
  ran: boolean;
  /** The first day not rolled yet (null: none rolled). */
  rolledBefore: string | null;
  /** Accounts whose days were rolled, and account-days rolled. */
  accounts: number;
  days: number;
}

/**
 * Roll the closed São Paulo days into message_pricing_days, once per new day: on the first run every day since each
 * account's first send, later the days since the last run plus the DEFAULT_REROLL_DAYS before it (late pricing).
 * Each account's days are replaced in one transaction under an advisory lock, so pods running it together only
 * repeat work. Nothing here runs on the status path: APPLY_ROUND only stores `messages.pricing`.
 */
export async function rollupPricingDays(
  deps: { db: Db },
  input: { now?: Date; rerollDays?: number; signal?: AbortSignal } = {},
): Promise<RollupResult> {
  const sql = deps.db.sql;
  const today = saoPauloDay(input.now ?? new Date());
  const current = await readRolledBefore(sql);
  if (current !== null && current >= today) return { ran: false, rolledBefore: current, accounts: 0, days: 0 };
  const lastClosed = addDays(today, -1);
  const from = current === null ? null : addDays(current, -(input.rerollDays ?? DEFAULT_REROLL_DAYS));
  // Each account's first and last send through the (account_id, created_at) index: no scan of every message.
  const { rows: spans } = await sql.query<AccountSpan>({
    name: "pricing-rollup-accounts",
    text: `SELECT a.id,
        ((SELECT m.created_at FROM messages m WHERE m.account_id = a.id ORDER BY m.created_at LIMIT 1)
          AT TIME ZONE '${LEDGER_TIME_ZONE}')::date::text AS first_day,
        ((SELECT m.created_at FROM messages m WHERE m.account_id = a.id ORDER BY m.created_at DESC LIMIT 1)
          AT TIME ZONE '${LEDGER_TIME_ZONE}')::date::text AS last_day
      FROM accounts a ORDER BY a.id`,
  });
  let accounts = 0;
  let days = 0;
  for (const span of spans) {
    if (span.first_day === null || span.last_day === null) continue;
    const start = from !== null && from > span.first_day ? from : span.first_day;
    if (span.last_day < start || start > lastClosed) continue;
    accounts += 1;
    for (let chunk = start; chunk <= lastClosed; chunk = addDays(chunk, CHUNK_DAYS)) {
      // Stopping half-way leaves the state where it was: the next run does it all again.
      if (input.signal?.aborted) return { ran: true, rolledBefore: current, accounts, days };
      const end = addDays(chunk, CHUNK_DAYS - 1) < lastClosed ? addDays(chunk, CHUNK_DAYS - 1) : lastClosed;
      await inTransaction(sql, async (client) => {
        await client.query({
          name: "pricing-rollup-lock",
          text: `SELECT pg_advisory_xact_lock(hashtext('gw.pricing_rollup'), hashtext($1))`,
          values: [span.id],
        });
        await client.query({ name: "pricing-rollup-clear", text: CLEAR_DAYS, values: [span.id, chunk, end] });
        await client.query({ name: "pricing-rollup-roll", text: ROLL_DAYS, values: [span.id, chunk, end] });
      });
      days += Math.round((Date.parse(end) - Date.parse(chunk)) / 86_400_000) + 1;
    }
  }
  await sql.query({
    name: "pricing-rollup-advance",
    text: `INSERT INTO pricing_rollup_state (id, rolled_before, updated_at) VALUES ($1, $2::date, now())
      ON CONFLICT (id) DO UPDATE
        SET rolled_before = GREATEST(pricing_rollup_state.rolled_before, EXCLUDED.rolled_before), updated_at = now()`,
    values: [STATE_ID, today],
  });
  return { ran: true, rolledBefore: today, accounts, days };
}
