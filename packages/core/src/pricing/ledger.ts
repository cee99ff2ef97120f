import type { Db, Sql } from "@gw/db";
import { addDays, dayStartSql, LEDGER_TIME_ZONE, SEND_DAY_SQL } from "./days.ts";
import { formatBrlUnits } from "./money.ts";
import { loadRateCard, priceMessages, ratesInForce, type RateCard, type RateView } from "./rate-card.ts";
import { readRolledBefore } from "./rollup.ts";

/** What the ledger's rows can be grouped by: the São Paulo day, the business number, Meta's category and type. */
export const USAGE_DIMENSIONS = ["day", "number", "category", "type"] as const;
export type UsageDimension = (typeof USAGE_DIMENSIONS)[number];

/** Priced messages of one (day, number, category, type), as stored or aggregated. */
export interface LedgerCount {
  day: string;
  phoneNumberId: string;
  /** Meta's `pricing.category` verbatim; null when the pricing had none. */
  category: string | null;
  type: string | null;
  messages: number;
  /** Of them, those that failed afterwards: Meta charges only delivered messages. */
  failed: number;
}

export interface UsageFigures {
  /** Messages Meta reported a pricing for. */
  messages: number;
  /** Of them, those charged: `type` regular, and not failed afterwards. */
  charged_messages: number;
  /** Priced messages that failed afterwards (never charged). */
  failed_messages: number;
  /** Estimated cost in BRL, four decimals. */
  cost_brl: string;
  /** Charged messages of a category without a rate, estimated at the fallback (marketing) rate. */
  fallback_messages: number;
}

export interface UsageRow extends UsageFigures {
  day?: string;
  phone_number_id?: string;
  category?: string | null;
  type?: string | null;
}

export interface UsageReport {
  currency: "BRL";
  time_zone: typeof LEDGER_TIME_ZONE;
  since: string;
  until: string;
  group_by: UsageDimension[];
  phone_number_id: string | null;
  totals: UsageFigures;
  rows: UsageRow[];
  /** The rate of each category on `until` (the account's own over the deployment's). */
  rates: RateView[];
}

export interface UsageInput {
  accountId: string;
  /** São Paulo days, both included, checked by the caller (at most a year apart). */
  since: string;
  until: string;
  groupBy: readonly UsageDimension[];
  phoneNumberId?: string | null | undefined;
}

interface CountRow {
  day: string;
  phone_number_id: string;
  category: string;
  pricing_type: string;
  messages: number;
  failed: number;
}

// Days before `rolled_before` come from the daily rollup (a few rows per day); later days are aggregated from the
// messages themselves, through the (account_id, created_at) index: today's, and any the rollup has not reached.
const LEDGER_COUNTS = `
SELECT d.day::text AS day, d.phone_number_id, d.category, d.pricing_type, d.messages, d.failed
FROM message_pricing_days d
WHERE d.account_id = $1::uuid AND d.day >= $2::date AND d.day <= $3::date AND d.day < $4::date
  AND ($5::text IS NULL OR d.phone_number_id = $5)
UNION ALL
SELECT ${SEND_DAY_SQL}::text, m.phone_number_id, COALESCE(m.pricing->>'category', ''), COALESCE(m.pricing->>'type', ''),
  count(*)::int, (count(*) FILTER (WHERE m.status = 'failed'))::int
FROM messages m
WHERE m.account_id = $1::uuid AND m.pricing IS NOT NULL
  AND m.created_at >= ${dayStartSql("GREATEST($2::date, $4::date)")} AND m.created_at < ${dayStartSql("($3::date + 1)")}
  AND ($5::text IS NULL OR m.phone_number_id = $5)
GROUP BY 1, 2, 3, 4`;

/** Priced messages of the account per day, number, category and type, from the rollup and the live days. */
export async function ledgerCounts(
  sql: Sql,
  input: { accountId: string; since: string; until: string; phoneNumberId?: string | null | undefined },
): Promise<LedgerCount[]> {
  // Before the first rollup every day is live; a day before `since` makes the rollup's share empty.
  const rolledBefore = (await readRolledBefore(sql)) ?? addDays(input.since, -1);
  const { rows } = await sql.query<CountRow>({
    name: "pricing-ledger-counts",
    text: LEDGER_COUNTS,
    values: [input.accountId, input.since, input.until, rolledBefore, input.phoneNumberId ?? null],
  });
  return rows.map((row) => ({
    day: row.day,
    phoneNumberId: row.phone_number_id,
    category: row.category === "" ? null : row.category,
    type: row.pricing_type === "" ? null : row.pricing_type,
    messages: row.messages,
    failed: row.failed,
  }));
}

interface Sums {
  messages: number;
  charged: number;
  failed: number;
  costUnits: number;
  fallback: number;
}

const figures = (sums: Sums): UsageFigures => ({
  messages: sums.messages,
  charged_messages: sums.charged,
  failed_messages: sums.failed,
  cost_brl: formatBrlUnits(sums.costUnits),
  fallback_messages: sums.fallback,
});

function add(into: Sums, more: Sums): void {
  into.messages += more.messages;
  into.charged += more.charged;
  into.failed += more.failed;
  into.costUnits += more.costUnits;
  into.fallback += more.fallback;
}

/** Each dimension's value in a count, and the row field that carries it. */
const DIMENSIONS: Record<
  UsageDimension,
  { valueOf: (count: LedgerCount) => string | null; field: "day" | "phone_number_id" | "category" | "type" }
> = {
  day: { valueOf: (count) => count.day, field: "day" },
  number: { valueOf: (count) => count.phoneNumberId, field: "phone_number_id" },
  category: { valueOf: (count) => count.category, field: "category" },
  type: { valueOf: (count) => count.type, field: "type" },
};

function compareValues(left: readonly (string | null)[], right: readonly (string | null)[]): number {
  for (let i = 0; i < left.length; i++) {
    const order = (left[i] ?? "").localeCompare(right[i] ?? "");
    if (order !== 0) return order;
  }
  return 0;
}

/**
 * Price each count with the rate in force on its day and fold them into one row per value of `groupBy` (the row
 * carries those values, in the order asked), sorted by them; the totals cover every count.
 */
export function foldUsage(
  card: RateCard,
  counts: readonly LedgerCount[],
  groupBy: readonly UsageDimension[],
): { totals: UsageFigures; rows: UsageRow[] } {
  const totals: Sums = { messages: 0, charged: 0, failed: 0, costUnits: 0, fallback: 0 };
  const groups = new Map<string, { values: (string | null)[]; sums: Sums }>();
  for (const count of counts) {
    const priced = priceMessages(card, count);
    add(totals, priced);
    const values = groupBy.map((dimension) => DIMENSIONS[dimension].valueOf(count));
    const id = JSON.stringify(values);
    const group = groups.get(id) ?? { values, sums: { messages: 0, charged: 0, failed: 0, costUnits: 0, fallback: 0 } };
    add(group.sums, priced);
    groups.set(id, group);
  }
  const rows = [...groups.values()]
    .sort((a, b) => compareValues(a.values, b.values))
    .map(({ values, sums }) => {
      const keys: Omit<UsageRow, keyof UsageFigures> = {};
      groupBy.forEach((dimension, index) => {
        const value = values[index] ?? null;
        const field = DIMENSIONS[dimension].field;
        if (field === "day" || field === "phone_number_id") keys[field] = value ?? "";
        else keys[field] = value;
      });
      return { ...keys, ...figures(sums) };
    });
  return { totals: figures(totals), rows };
}

/** The ledger's range and the account's rate card, read once for several groupings. */
async function readLedger(deps: { db: Db }, input: Omit<UsageInput, "groupBy">) {
  return Promise.all([loadRateCard(deps.db.sql, { accountId: input.accountId }), ledgerCounts(deps.db.sql, input)]);
}

const header = (input: Omit<UsageInput, "groupBy">) => ({
  currency: "BRL" as const,
  time_zone: LEDGER_TIME_ZONE,
  since: input.since,
  until: input.until,
  phone_number_id: input.phoneNumberId ?? null,
});

/**
 * The account's cost ledger from `since` to `until` (São Paulo days, both included): messages Meta priced, how many
 * it charges (`type` regular) and their estimated cost in BRL by the rate card, grouped as asked.
 */
export async function usageReport(deps: { db: Db }, input: UsageInput): Promise<UsageReport> {
  const [card, counts] = await readLedger(deps, input);
  const groupBy = [...new Set(input.groupBy)];
  return {
    ...header(input),
    group_by: groupBy,
    ...foldUsage(card, counts, groupBy),
    rates: ratesInForce(card, input.until),
  };
}

export interface UsageBreakdown extends Omit<UsageReport, "group_by" | "rows"> {
  /** One list of rows per grouping asked, in the same order. */
  groups: UsageRow[][];
}

/** The same ledger folded several ways from one read (the panel's Custos page: by day, category, number). */
export async function usageBreakdown(
  deps: { db: Db },
  input: Omit<UsageInput, "groupBy"> & { groupings: readonly (readonly UsageDimension[])[] },
): Promise<UsageBreakdown> {
  const [card, counts] = await readLedger(deps, input);
  const folds = input.groupings.map((groupBy) => foldUsage(card, counts, [...new Set(groupBy)]));
  return {
    ...header(input),
    totals: foldUsage(card, counts, []).totals,
    groups: folds.map((fold) => fold.rows),
    rates: ratesInForce(card, input.until),
  };
}
