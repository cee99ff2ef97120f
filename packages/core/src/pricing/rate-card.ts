import type { Db, Sql } from "@gw/db";
import { auditAction, recordAudit, type Actor } from "../audit/audit.ts";
import { isCalendarDay } from "./days.ts";
import { brlUnits, formatBrlUnits } from "./money.ts";

/** The only `pricing.type` Meta charges (meta-2026 §2.3); every other type costs nothing. */
export const CHARGED_TYPE = "regular";

/**
 * A charged message of a category the rate card has no rate for (a category Meta added, group messages) is
 * estimated at this category's rate, the highest of the card, and counted apart (`fallback_messages`), so a new
 * category makes the estimate too high and visible rather than silently too low.
 */
export const FALLBACK_CATEGORY = "marketing";

/**
 * The rate card's name for a pricing category. Meta's status page writes `authentication-international` (hyphen);
 * pywa and the conversation object write `authentication_international` (meta-2026 §2.2): both are that one rate.
 * Every other value is its own category, verbatim.
 */
export function rateCategoryOf(category: string): string {
  return category === "authentication_international" ? "authentication-international" : category;
}

export type RateScope = "deployment" | "account";

export interface RateEntry {
  category: string;
  /** São Paulo day from which it prices messages. */
  effectiveFrom: string;
  /** R$ 0,0001 units per charged message. */
  units: number;
  scope: RateScope;
}

/** The rates that price one account's messages: the account's own, over the deployment's. */
export interface RateCard {
  readonly entries: readonly RateEntry[];
  /** The rate in force on `day` for `category` (already a rate-card name), or null when none is. */
  rateOn(category: string, day: string): RateEntry | null;
}

interface RateRow {
  scope: RateScope;
  category: string;
  effective_from: string;
  rate_brl: string;
}

/** A rate card over the given entries (tests build one by hand). */
export function rateCardOf(entries: readonly RateEntry[]): RateCard {
  // Newest first, so the first entry not after the day is the one in force.
  const sorted = [...entries].sort((a, b) => b.effectiveFrom.localeCompare(a.effectiveFrom));
  const inForce = (scope: RateScope, category: string, day: string) =>
    sorted.find((entry) => entry.scope === scope && entry.category === category && entry.effectiveFrom <= day) ?? null;
  return {
    entries: sorted,
    rateOn: (category, day) => inForce("account", category, day) ?? inForce("deployment", category, day),
  };
}

/** The deployment's rate card with `accountId`'s own rates over it (null: the deployment's alone). Two PK reads. */
export async function loadRateCard(sql: Sql, input: { accountId: string | null }): Promise<RateCard> {
  const { rows } = await sql.query<RateRow>({
    name: "pricing-rate-card",
    text: `SELECT 'deployment' AS scope, category, effective_from::text AS effective_from, rate_brl::text AS rate_brl
        FROM pricing_rates
      UNION ALL
      SELECT 'account', category, effective_from::text, rate_brl::text FROM account_pricing_rates
        WHERE $1::uuid IS NOT NULL AND account_id = $1::uuid`,
    values: [input.accountId],
  });
  return rateCardOf(
    rows.map((row) => ({
      scope: row.scope,
      category: row.category,
      effectiveFrom: row.effective_from,
      units: brlUnits(row.rate_brl) ?? 0,
    })),
  );
}

/** What a group of priced messages costs: how many were charged, their estimated cost, how many by the fallback. */
export interface PricedMessages {
  messages: number;
  charged: number;
  /** Failed after their pricing was reported: never charged. */
  failed: number;
  costUnits: number;
  /** Charged messages of a category without a rate, estimated at FALLBACK_CATEGORY's rate. */
  fallback: number;
}

/**
 * Price `messages` messages Meta reported with `category` and `type` on `day`, `failed` of which failed afterwards.
 * Only `regular` is charged (never `billable`, which Meta deprecates), and never a failed message: Meta charges
 * delivered messages, and may report the pricing on `sent` before a failure. A message sent and not delivered yet
 * counts as charged (most are delivered: the estimate leans high). A missing type (pre-v24 payloads, meta-2026
 * §2.2) is not charged either, since the gateway keeps no `billable` to fall back to.
 */
export function priceMessages(
  card: RateCard,
  input: { day: string; category: string | null; type: string | null; messages: number; failed?: number },
): PricedMessages {
  const { messages } = input;
  const failed = input.failed ?? 0;
  if (input.type !== CHARGED_TYPE) return { messages, charged: 0, failed, costUnits: 0, fallback: 0 };
  const own = input.category ? card.rateOn(rateCategoryOf(input.category), input.day) : null;
  const rate = own ?? card.rateOn(FALLBACK_CATEGORY, input.day);
  const charged = messages - failed;
  return { messages, charged, failed, costUnits: charged * (rate?.units ?? 0), fallback: own ? 0 : charged };
}

export interface RateView {
  category: string;
  rate_brl: string;
  effective_from: string;
  /** `account`: a rate of this account's own; `deployment`: the deployment's card. */
  scope: RateScope;
}

/** The rate of each category in force on `day`, by category name. */
export function ratesInForce(card: RateCard, day: string): RateView[] {
  const categories = [...new Set(card.entries.map((entry) => entry.category))].sort();
  return categories.flatMap((category) => {
    const entry = card.rateOn(category, day);
    return entry
      ? [
          {
            category,
            rate_brl: formatBrlUnits(entry.units),
            effective_from: entry.effectiveFrom,
            scope: entry.scope,
          },
        ]
      : [];
  });
}

/** A rate the operator cannot set; its message is a Portuguese sentence for them. */
export class PricingRateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PricingRateError";
  }
}

/** Meta's category names are lower case words with `_` or `-` (`authentication-international`, `group_marketing`). */
const CATEGORY = /^[a-z][a-z0-9_-]{0,63}$/;

export interface PricingRateRow {
  scope: RateScope;
  account_id: string | null;
  category: string;
  effective_from: string;
  rate_brl: string;
}

const dayOf = (date: Date) => date.toISOString().slice(0, 10);
const dateOf = (day: string) => new Date(`${day}T00:00:00Z`);

function checkedRate(input: { category: string; rateBrl: string; effectiveFrom: string }) {
  if (!CATEGORY.test(input.category))
    throw new PricingRateError(
      `Categoria inválida: ${input.category}. Use o nome da categoria como a Meta o envia em pricing.category (ex.: marketing, utility, authentication, authentication-international, service).`,
    );
  const units = brlUnits(input.rateBrl);
  if (units === null)
    throw new PricingRateError(
      `Tarifa inválida: ${input.rateBrl}. Informe o preço em reais por mensagem com ponto e até 4 casas decimais (ex.: 0.3350).`,
    );
  if (!isCalendarDay(input.effectiveFrom))
    throw new PricingRateError(`Data inválida: ${input.effectiveFrom}. Use AAAA-MM-DD (ex.: 2027-01-01).`);
  return { category: rateCategoryOf(input.category), units, effectiveFrom: dateOf(input.effectiveFrom) };
}

async function requireAccount(db: Db, accountId: string): Promise<void> {
  if (!(await db.account.findUnique({ where: { id: accountId }, select: { id: true } })))
    throw new PricingRateError("Conta não encontrada: confira --account.");
}

/**
 * Set the rate of a category from a day on: the deployment's (`accountId` absent) or one account's own. The same
 * category and day again replaces the rate. Days before `effectiveFrom` keep the rate they had.
 */
export async function setPricingRate(
  deps: { db: Db },
  input: {
    category: string;
    rateBrl: string;
    effectiveFrom: string;
    accountId?: string | null | undefined;
    actor: Actor;
  },
): Promise<PricingRateRow & { previous_rate_brl: string | null }> {
  const { category, units, effectiveFrom } = checkedRate(input);
  const accountId = input.accountId ?? null;
  if (accountId) await requireAccount(deps.db, accountId);
  const rateBrl = formatBrlUnits(units);
  return deps.db.$transaction(async (tx) => {
    let previous: string | null;
    if (accountId) {
      const key = { accountId, category, effectiveFrom };
      const before = await tx.accountPricingRate.findUnique({ where: { accountId_category_effectiveFrom: key } });
      previous = before ? before.rateBrl.toFixed(4) : null;
      await tx.accountPricingRate.upsert({
        where: { accountId_category_effectiveFrom: key },
        create: { ...key, rateBrl },
        update: { rateBrl },
      });
    } else {
      const key = { category, effectiveFrom };
      const before = await tx.pricingRate.findUnique({ where: { category_effectiveFrom: key } });
      previous = before ? before.rateBrl.toFixed(4) : null;
      await tx.pricingRate.upsert({
        where: { category_effectiveFrom: key },
        create: { ...key, rateBrl },
        update: { rateBrl },
      });
    }
    const row: PricingRateRow = {
      scope: accountId ? "account" : "deployment",
      account_id: accountId,
      category,
      effective_from: dayOf(effectiveFrom),
      rate_brl: rateBrl,
    };
    await recordAudit(tx, {
      accountId,
      actor: input.actor,
      action: auditAction(input.actor, "pricing_rate.set"),
      target: `pricing_rate:${category}:${row.effective_from}`,
      details: { scope: row.scope, rate_brl: rateBrl, previous_rate_brl: previous },
    });
    return { ...row, previous_rate_brl: previous };
  });
}

/** Remove the rate of a category from a day (a mistake); null when there was none. */
export async function removePricingRate(
  deps: { db: Db },
  input: { category: string; effectiveFrom: string; accountId?: string | null | undefined; actor: Actor },
): Promise<PricingRateRow | null> {
  const { category, effectiveFrom } = checkedRate({ ...input, rateBrl: "0" });
  const accountId = input.accountId ?? null;
  return deps.db.$transaction(async (tx) => {
    let removed: { rateBrl: { toFixed(digits: number): string } } | null;
    if (accountId) {
      const key = { accountId, category, effectiveFrom };
      removed = await tx.accountPricingRate.findUnique({ where: { accountId_category_effectiveFrom: key } });
      if (removed) await tx.accountPricingRate.delete({ where: { accountId_category_effectiveFrom: key } });
    } else {
      const key = { category, effectiveFrom };
      removed = await tx.pricingRate.findUnique({ where: { category_effectiveFrom: key } });
      if (removed) await tx.pricingRate.delete({ where: { category_effectiveFrom: key } });
    }
    if (!removed) return null;
    const row: PricingRateRow = {
      scope: accountId ? "account" : "deployment",
      account_id: accountId,
      category,
      effective_from: dayOf(effectiveFrom),
      rate_brl: removed.rateBrl.toFixed(4),
    };
    await recordAudit(tx, {
      accountId,
      actor: input.actor,
      action: auditAction(input.actor, "pricing_rate.removed"),
      target: `pricing_rate:${category}:${row.effective_from}`,
      details: { scope: row.scope, rate_brl: row.rate_brl },
    });
    return row;
  });
}

/** Every rate of the deployment's card (with `accountId`, that account's own rates too), by category and date. */
export async function listPricingRates(
  deps: { db: Db },
  input: { accountId?: string | null | undefined },
): Promise<PricingRateRow[]> {
  const accountId = input.accountId ?? null;
  if (accountId) await requireAccount(deps.db, accountId);
  const [deployment, own] = await Promise.all([
    deps.db.pricingRate.findMany({ orderBy: [{ category: "asc" }, { effectiveFrom: "asc" }] }),
    accountId
      ? deps.db.accountPricingRate.findMany({
          where: { accountId },
          orderBy: [{ category: "asc" }, { effectiveFrom: "asc" }],
        })
      : Promise.resolve([]),
  ]);
  return [
    ...deployment.map((rate) => ({
      scope: "deployment" as const,
      account_id: null,
      category: rate.category,
      effective_from: dayOf(rate.effectiveFrom),
      rate_brl: rate.rateBrl.toFixed(4),
    })),
    ...own.map((rate) => ({
      scope: "account" as const,
      account_id: rate.accountId,
      category: rate.category,
      effective_from: dayOf(rate.effectiveFrom),
      rate_brl: rate.rateBrl.toFixed(4),
    })),
  ];
}
