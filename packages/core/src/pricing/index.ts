export { addDays, daysInRange, isCalendarDay, LEDGER_TIME_ZONE, saoPauloDay } from "./days.ts";
export { BRL_UNITS_PER_REAL, brlUnits, formatBrlUnits } from "./money.ts";
export {
  CHARGED_TYPE,
  FALLBACK_CATEGORY,
  PricingRateError,
  listPricingRates,
  loadRateCard,
  priceMessages,
  rateCardOf,
  rateCategoryOf,
  ratesInForce,
  removePricingRate,
  setPricingRate,
} from "./rate-card.ts";
export type { PricedMessages, PricingRateRow, RateCard, RateEntry, RateScope, RateView } from "./rate-card.ts";
export { USAGE_DIMENSIONS, foldUsage, ledgerCounts, usageBreakdown, usageReport } from "./ledger.ts";
export type {
  LedgerCount,
  UsageBreakdown,
  UsageDimension,
  UsageFigures,
  UsageInput,
  UsageReport,
  UsageRow,
} from "./ledger.ts";
export { DEFAULT_REROLL_DAYS, readRolledBefore, rollupPricingDays } from "./rollup.ts";
export type { RollupResult } from "./rollup.ts";
