import type { Sql } from "@gw/db";
import type { RecipientOutcome } from "@gw/contracts";
import { saoPauloDay, SEND_DAY_SQL } from "../pricing/days.ts";
import { formatBrlUnits } from "../pricing/money.ts";
import { FALLBACK_CATEGORY, priceMessages, rateCategoryOf, type RateCard } from "../pricing/rate-card.ts";
import { EMPTY_PROGRESS, OUTCOME_SQL, type CampaignProgress } from "./model.ts";

/**
 * What the campaign would cost if every accepted recipient were charged once at the rate of the template's category
 * (the rate card's, on the day it starts): an upper bound. Meta charges only delivered messages, lowers utility and
 * authentication rates by volume tier, and until 30 Sep 2026 did not charge utility templates inside an open
 * customer-service window.
 */
export interface CampaignCostEstimate {
  currency: "BRL";
  amount_brl: string;
  rate_brl: string;
  /** The pricing category whose rate was used: the template's, or marketing when the card has no rate for it. */
  category: string;
  recipients: number;
}

/** What the campaign's messages cost so far, as Meta priced them in their status webhooks (the cost ledger's way). */
export interface CampaignRunningCost {
  currency: "BRL";
  amount_brl: string;
  /** Messages Meta reported a pricing for; of them those charged (`type` regular, not failed) and those failed. */
  priced_messages: number;
  charged_messages: number;
  failed_messages: number;
  /** Charged messages of a category without a rate, estimated at the marketing rate. */
  fallback_messages: number;
}

interface PricedOutcomeRow {
  outcome: RecipientOutcome;
  /** Null for a recipient whose message has no pricing (not sent yet, or not priced by Meta yet). */
  day: string | null;
  category: string | null;
  type: string | null;
  count: number;
}

/**
 * One campaign's progress and the pricing of its messages, in one pass over its recipients (the detail's query;
 * the list keeps `progressOf`, which reads no pricing).
 */
export async function pricedProgressOf(
  sql: Sql,
  card: RateCard,
  campaignId: string,
): Promise<{ progress: CampaignProgress; running: CampaignRunningCost }> {
  const { rows } = await sql.query<PricedOutcomeRow>({
    name: "campaign-progress-priced",
    text: `SELECT ${OUTCOME_SQL} AS outcome, CASE WHEN m.pricing IS NULL THEN NULL ELSE ${SEND_DAY_SQL}::text END AS day,
        m.pricing->>'category' AS category, m.pricing->>'type' AS type, count(*)::int AS count
      FROM campaign_recipients r LEFT JOIN messages m ON m.wamid = r.wamid
      WHERE r.campaign_id = $1::uuid GROUP BY 1, 2, 3, 4`,
    values: [campaignId],
  });
  const progress = { ...EMPTY_PROGRESS };
  const sums = { priced: 0, charged: 0, failed: 0, costUnits: 0, fallback: 0 };
  for (const row of rows) {
    progress[row.outcome] += row.count;
    if (row.day === null) continue;
    // A sent recipient's outcome is its message's status: `failed` here is a message that failed after its pricing.
    const priced = priceMessages(card, {
      day: row.day,
      category: row.category,
      type: row.type,
      messages: row.count,
      failed: row.outcome === "failed" ? row.count : 0,
    });
    sums.priced += priced.messages;
    sums.charged += priced.charged;
    sums.failed += priced.failed;
    sums.costUnits += priced.costUnits;
    sums.fallback += priced.fallback;
  }
  return {
    progress,
    running: {
      currency: "BRL",
      amount_brl: formatBrlUnits(sums.costUnits),
      priced_messages: sums.priced,
      charged_messages: sums.charged,
      failed_messages: sums.failed,
      fallback_messages: sums.fallback,
    },
  };
}

/** What a campaign's estimate reads of it. */
interface EstimatedCampaign {
  started_at: Date | null;
  start_at: Date | null;
  template_category: string | null;
  accepted_recipients: number;
}

/** The estimate of `row` with `card`, at the rates of the day it started (or will start). */
export function estimateOf(card: RateCard, row: EstimatedCampaign, now: number): CampaignCostEstimate {
  const day = saoPauloDay(row.started_at ?? row.start_at ?? new Date(now));
  const templateCategory = row.template_category ? rateCategoryOf(row.template_category.toLowerCase()) : null;
  const own = templateCategory ? card.rateOn(templateCategory, day) : null;
  const rate = own ?? card.rateOn(FALLBACK_CATEGORY, day);
  const units = rate?.units ?? 0;
  return {
    currency: "BRL",
    amount_brl: formatBrlUnits(units * row.accepted_recipients),
    rate_brl: formatBrlUnits(units),
    category: own && templateCategory ? templateCategory : FALLBACK_CATEGORY,
    recipients: row.accepted_recipients,
  };
}
