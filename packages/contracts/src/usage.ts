import { z } from "zod";
import { RequestValidationError } from "./validation.ts";

/** GET /usage: the account's cost ledger (docs/decisions.md, "Per-message pricing and costs"). */

/** What the rows can be grouped by. */
export const USAGE_GROUPS = ["day", "number", "category", "type"] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];
/** Days one query may cover, both ends counted (a leap year). */
export const USAGE_MAX_DAYS = 366;
/** Days covered when `since` is absent. */
export const USAGE_DEFAULT_DAYS = 30;

const GROUP_BY = new RegExp(`^(${USAGE_GROUPS.join("|")})(,(${USAGE_GROUPS.join("|")}))*$`);

const day = () => z.iso.date();
/** A day in an answer: a pattern, not `format: date` (the document's readers need not know that format). */
const dayOut = () => z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const UsageQuery = z.object({
  since: day()
    .optional()
    .describe(`First day (YYYY-MM-DD, São Paulo). Default: ${USAGE_DEFAULT_DAYS - 1} days before \`until\``),
  until: day().optional().describe("Last day, included (YYYY-MM-DD, São Paulo). Default: today in São Paulo"),
  group_by: z
    .string()
    .regex(GROUP_BY)
    .default("day")
    .transform((value) => [...new Set(value.split(","))] as UsageGroup[])
    .describe(
      "One or more of day, number, category, type, separated by commas (`day,category`): one row per combination, in that order",
    )
    .meta({ example: "day,category" }),
  phone_number_id: z.string().min(1).max(64).optional().describe("Only this business number's messages"),
});
export type UsageQuery = z.output<typeof UsageQuery>;

/**
 * The range asked, with its defaults (`today` is São Paulo's): refused with 422 HTTPValidationError when `since`
 * comes after `until` or the range spans more than USAGE_MAX_DAYS days.
 */
export function usageRange(query: { since?: string | undefined; until?: string | undefined }, today: string) {
  const until = query.until ?? today;
  const since = query.since ?? shiftDay(until, -(USAGE_DEFAULT_DAYS - 1));
  const days = Math.round((Date.parse(until) - Date.parse(since)) / 86_400_000) + 1;
  if (days < 1)
    throw new RequestValidationError([
      {
        loc: ["query", "since"],
        msg: `A data inicial (${since}) deve ser igual ou anterior à final (${until}).`,
        type: "value_error",
        input: since,
      },
    ]);
  if (days > USAGE_MAX_DAYS)
    throw new RequestValidationError([
      {
        loc: ["query", query.since === undefined ? "until" : "since"],
        msg: `O período pode ter no máximo ${USAGE_MAX_DAYS} dias; este tem ${days}.`,
        type: "value_error",
        input: query.since ?? query.until,
        ctx: { max_days: USAGE_MAX_DAYS },
      },
    ]);
  return { since, until };
}

function shiftDay(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

const brl = () => z.string().regex(/^\d+\.\d{4}$/);
const count = () => z.int().min(0);

const figures = {
  messages: count().describe("Messages Meta reported a pricing for"),
  charged_messages: count().describe(
    "Of them, those Meta charges: pricing.type `regular`, not failed afterwards (sent and not yet delivered counts)",
  ),
  failed_messages: count().describe("Priced messages that failed afterwards: Meta charges only delivered messages"),
  cost_brl: brl().describe("Estimated cost in BRL (reais, four decimals) by the rate card in force on each day"),
  fallback_messages: count().describe(
    "Charged messages of a category the rate card has no rate for, estimated at the marketing rate",
  ),
};

export const UsageRowOut = z
  .object({
    day: dayOut().optional().describe("With group_by day: São Paulo day of the sends"),
    phone_number_id: z.string().optional().describe("With group_by number"),
    category: z
      .string()
      .nullable()
      .optional()
      .describe("With group_by category: Meta's pricing.category, verbatim (null when Meta sent none)"),
    type: z
      .string()
      .nullable()
      .optional()
      .describe("With group_by type: Meta's pricing.type, verbatim (regular, free_customer_service, ...)"),
    ...figures,
  })
  .meta({ id: "UsageRowOut" });

export const UsageRateOut = z
  .object({
    category: z.string(),
    rate_brl: brl().describe("Price of one charged message"),
    effective_from: dayOut(),
    scope: z.enum(["deployment", "account"]).describe("`account`: a rate set for this account alone"),
  })
  .meta({ id: "UsageRateOut" });

const USAGE_EXAMPLE = {
  success: true,
  data: {
    currency: "BRL",
    time_zone: "America/Sao_Paulo",
    since: "2026-11-01",
    until: "2026-11-02",
    group_by: ["day", "category"],
    phone_number_id: null,
    totals: { messages: 1250, charged_messages: 1050, failed_messages: 0, cost_brl: "306.9600", fallback_messages: 0 },
    rows: [
      {
        day: "2026-11-01",
        category: "marketing",
        messages: 900,
        charged_messages: 900,
        failed_messages: 0,
        cost_brl: "301.5000",
        fallback_messages: 0,
      },
      {
        day: "2026-11-01",
        category: "utility",
        messages: 300,
        charged_messages: 100,
        failed_messages: 0,
        cost_brl: "3.6400",
        fallback_messages: 0,
      },
      {
        day: "2026-11-02",
        category: "authentication",
        messages: 50,
        charged_messages: 50,
        failed_messages: 0,
        cost_brl: "1.8200",
        fallback_messages: 0,
      },
    ],
    rates: [
      { category: "authentication", rate_brl: "0.0364", effective_from: "2025-07-01", scope: "deployment" },
      { category: "marketing", rate_brl: "0.3350", effective_from: "2025-07-01", scope: "deployment" },
      { category: "utility", rate_brl: "0.0364", effective_from: "2025-07-01", scope: "deployment" },
    ],
  },
};

export const UsageOut = z
  .object({
    success: z.literal(true),
    data: z.object({
      currency: z.literal("BRL"),
      time_zone: z
        .literal("America/Sao_Paulo")
        .describe("Days are São Paulo calendar days; a message counts on the day it was sent"),
      since: dayOut(),
      until: dayOut(),
      group_by: z.array(z.enum(USAGE_GROUPS)),
      phone_number_id: z.string().nullable(),
      totals: z.object(figures).describe("The whole range"),
      rows: z
        .array(UsageRowOut)
        .describe("One per combination of the group_by values that has priced messages, sorted by them"),
      rates: z.array(UsageRateOut).describe("The rate of each category in force on `until`"),
    }),
  })
  .meta({ id: "UsageOut", examples: [USAGE_EXAMPLE] });
