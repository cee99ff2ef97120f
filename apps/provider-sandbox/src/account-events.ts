import { z } from "zod";
import { phoneNumberSettings } from "./graph/numbers.ts";
import { digitsOf, type SandboxState } from "./state.ts";
import { MESSAGING_LIMIT_TIERS, type MessagingLimitTier, type PhoneNumberSettings } from "./types.ts";
import { portfolioOf } from "./users.ts";
import { wabaPayload, type AccountWebhookPayload } from "./webhooks.ts";

/** Meta's throughput after `THROUGHPUT_UPGRADE` (meta-2026 §5.1): 1,000 messages per second. */
export const HIGH_THROUGHPUT_PER_SECOND = 1000;

const eventName = z.string().regex(/^[A-Z][A-Z0-9_]*$/, "deve ser um evento em maiúsculas (ex.: DISABLED_UPDATE)");
const tier = z.enum(MESSAGING_LIMIT_TIERS);

/**
 * Body of POST /_sandbox/account-update: any `event` (Meta's or one it has not published yet); every other key is put
 * in the webhook's `value` as given, over the sandbox's defaults for known events (ban_info, violation_info…).
 */
export const accountUpdateSchema = z.looseObject({
  event: eventName,
  waba_id: z.string().min(1).optional(),
  /** `owner_business_id` of the default `waba_info`; default: the default portfolio. */
  portfolio_id: z.string().min(1).optional(),
});

/**
 * Body of POST /_sandbox/numbers/quality-update: Meta's phone_number_quality_update for one number, which also
 * changes what GET /{phone-number-id} reports. THROUGHPUT_UPGRADE moves the number to 1,000 msg/s (its rate,
 * throughput HIGH) and the unlimited tier; `quality_rating` sets the number's quality (Meta's value has no quality
 * field: a quality drop with no webhook is POST /_sandbox/numbers).
 */
export const numberQualityUpdateSchema = z
  .object({
    phone_number_id: z.string().regex(/^\d{1,20}$/, "deve ter só dígitos (até 20)"),
    /** ONBOARDING, THROUGHPUT_UPGRADE; older payloads: FLAGGED, UNFLAGGED, UPGRADE, DOWNGRADE. */
    event: eventName,
    /** Default: TIER_UNLIMITED for THROUGHPUT_UPGRADE, else the number's current tier. */
    max_daily_conversations_per_business: tier.optional(),
    /** Legacy keys announced for removal in 2026: sent only when given. */
    current_limit: z.string().min(1).optional(),
    old_limit: z.string().min(1).optional(),
    quality_rating: z.enum(["GREEN", "YELLOW", "RED", "UNKNOWN"]).optional(),
    waba_id: z.string().min(1).optional(),
  })
  .strict();

/**
 * Body of POST /_sandbox/business-capability: Meta's business_capability_update. The portfolio's numbers report the
 * new messaging limit from then on (Meta documents tier strings but its example sends 2000: both are accepted).
 */
export const businessCapabilitySchema = z
  .object({
    max_daily_conversations_per_business: z.union([tier, z.number().int()]),
    /** Legacy (v23.0 and older): 250, 2000, 10000, 100000 or -1 (unlimited); sent only when given. */
    max_daily_conversation_per_phone: z.number().int().optional(),
    /** Default: 2 per business when the limit is 250, else 25 per WABA (Meta sends one or the other). */
    max_phone_numbers_per_business: z.number().int().positive().optional(),
    max_phone_numbers_per_waba: z.number().int().positive().optional(),
    portfolio_id: z.string().min(1).optional(),
    waba_id: z.string().min(1).optional(),
  })
  .strict();

const LIMIT_BY_NUMBER: Record<number, MessagingLimitTier> = {
  250: "TIER_250",
  2000: "TIER_2K",
  10000: "TIER_10K",
  100000: "TIER_100K",
  [-1]: "TIER_UNLIMITED",
};

function seconds(state: SandboxState): number {
  return Math.floor(state.now() / 1000);
}

/** Meta writes `waba_ban_date` for people ("June 1, 2026"). */
function humanDate(ms: number): string {
  return new Date(ms).toLocaleDateString("en-US", { month: "long", day: "numeric", year: "numeric", timeZone: "UTC" });
}

/** What the sandbox puts in `value` for a known event when the call does not give it (meta-2026 §3.1). */
function accountDefaults(state: SandboxState, event: string, wabaId: string, owner: string): Record<string, unknown> {
  const now = seconds(state);
  const wabaInfo = { waba_id: wabaId, owner_business_id: owner };
  const nextMonth = new Date(state.now());
  nextMonth.setUTCMonth(nextMonth.getUTCMonth() + 1, 1);
  switch (event) {
    case "DISABLED_UPDATE":
      return { ban_info: { waba_ban_state: "DISABLE", waba_ban_date: humanDate(state.now()) } };
    case "ACCOUNT_VIOLATION":
      return { violation_info: { violation_type: "SCAM" } };
    case "ACCOUNT_RESTRICTION":
      return {
        restriction_info: [{ restriction_type: "RESTRICTED_BIZ_INITIATED_MESSAGING", expiration: now + 7 * 24 * 3600 }],
      };
    case "VOLUME_BASED_PRICING_TIER_UPDATE":
      return {
        volume_tier_info: {
          tier_update_time: now,
          pricing_category: "UTILITY",
          tier: "25000001:50000000",
          effective_month: nextMonth.toISOString().slice(0, 7),
          region: "Brazil",
        },
      };
    case "BUSINESS_PRIMARY_LOCATION_COUNTRY_UPDATE":
      return { country: "BR" };
    case "AUTH_INTL_PRICE_ELIGIBILITY_UPDATE":
      return { auth_international_rate_eligibility: { start_time: now, exception_countries: [] } };
    case "PARTNER_CLIENT_CERTIFICATION_STATUS_UPDATE":
      return {
        partner_client_certification_info: { client_business_id: owner, status: "APPROVED", rejection_reasons: [] },
      };
    case "AD_ACCOUNT_LINKED":
    case "MM_LITE_TERMS_SIGNED":
    case "PARTNER_ADDED":
    case "PARTNER_REMOVED":
    case "PARTNER_APP_INSTALLED":
    case "PARTNER_APP_UNINSTALLED":
      return { waba_info: wabaInfo };
    default:
      // ACCOUNT_DELETED, ACCOUNT_OFFBOARDED, ACCOUNT_RECONNECTED and unknown events: only what the call gives.
      return {};
  }
}

/** Meta's account_update webhook (WABA-level). The sandbox keeps sending and answering as before: it only notifies. */
export function accountUpdate(state: SandboxState, input: z.infer<typeof accountUpdateSchema>): AccountWebhookPayload {
  const { event, waba_id: wabaId, portfolio_id: portfolioId, ...given } = input;
  const waba = wabaId ?? state.wabaId;
  const defaults = accountDefaults(state, event, waba, portfolioId ?? state.config.portfolioId);
  return wabaPayload(state, waba, "account_update", { event, ...defaults, ...given });
}

/** Changes one number's settings (a new object, so the start-up options stay as they were for reset). */
function updateNumber(state: SandboxState, phoneNumberId: string, settings: Partial<PhoneNumberSettings>): void {
  state.config.numbers = {
    ...state.config.numbers,
    [phoneNumberId]: { ...state.config.numbers[phoneNumberId], ...settings },
  };
}

/** Applies a phone_number_quality_update to the number and builds the webhook (meta-2026 §3.2). */
export function numberQualityUpdate(
  state: SandboxState,
  input: z.infer<typeof numberQualityUpdateSchema>,
): AccountWebhookPayload {
  const id = input.phone_number_id;
  const upgrade = input.event === "THROUGHPUT_UPGRADE";
  const limit =
    input.max_daily_conversations_per_business ??
    (upgrade ? "TIER_UNLIMITED" : phoneNumberSettings(state, id).messaging_limit_tier);
  updateNumber(state, id, {
    messaging_limit_tier: limit,
    ...(upgrade ? { throughput_level: "HIGH" as const } : {}),
    ...(input.quality_rating ? { quality_rating: input.quality_rating } : {}),
  });
  if (upgrade) state.config.numberRates = { ...state.config.numberRates, [id]: HIGH_THROUGHPUT_PER_SECOND };
  const value: Record<string, unknown> = {
    display_phone_number: digitsOf(phoneNumberSettings(state, id).display_phone_number),
    event: input.event,
    max_daily_conversations_per_business: limit,
  };
  if (input.current_limit !== undefined) value.current_limit = input.current_limit;
  if (input.old_limit !== undefined) value.old_limit = input.old_limit;
  return wabaPayload(state, input.waba_id, "phone_number_quality_update", value);
}

/** Applies a business_capability_update to the portfolio's numbers and builds the webhook (meta-2026 §3.3). */
export function businessCapabilityUpdate(
  state: SandboxState,
  input: z.infer<typeof businessCapabilitySchema>,
): AccountWebhookPayload {
  const given = input.max_daily_conversations_per_business;
  const limit = typeof given === "number" ? LIMIT_BY_NUMBER[given] : given;
  const portfolio = input.portfolio_id ?? state.config.portfolioId;
  if (limit !== undefined) {
    state.config.portfolios = {
      ...state.config.portfolios,
      [portfolio]: { ...state.config.portfolios[portfolio], messagingLimit: limit },
    };
    // Numbers with their own settings follow too: the limit is the portfolio's.
    for (const id of Object.keys(state.config.numbers)) {
      if (portfolioOf(state, id) === portfolio) updateNumber(state, id, { messaging_limit_tier: limit });
    }
  }
  const value: Record<string, unknown> = { max_daily_conversations_per_business: given };
  if (input.max_daily_conversation_per_phone !== undefined)
    value.max_daily_conversation_per_phone = input.max_daily_conversation_per_phone;
  if (input.max_phone_numbers_per_business !== undefined || input.max_phone_numbers_per_waba !== undefined) {
    if (input.max_phone_numbers_per_business !== undefined)
      value.max_phone_numbers_per_business = input.max_phone_numbers_per_business;
    if (input.max_phone_numbers_per_waba !== undefined)
      value.max_phone_numbers_per_waba = input.max_phone_numbers_per_waba;
  } else if (limit === "TIER_250") value.max_phone_numbers_per_business = 2;
  else value.max_phone_numbers_per_waba = 25;
  return wabaPayload(state, input.waba_id, "business_capability_update", value);
}
