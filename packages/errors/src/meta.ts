import type { ErrorCode } from "./registry.ts";

/**
 * The single mapping from Meta Cloud API error codes to the service's stable codes (spec section 7).
 * Used for synchronous send refusals and for `error.reason` of failed `message.status` events.
 * Choices the spec leaves open are explained in docs/decisions.md ("Meta error codes").
 */
interface MetaRule {
  reason: ErrorCode;
  /** Refinements on Meta's `error_data.details` text, first match wins. */
  byDetails?: { pattern: RegExp; reason: ErrorCode }[];
}

export const META_ERROR_MAP: Readonly<Record<number, MetaRule>> = {
  // Throughput and pacing
  4: { reason: "rate_limited" },
  80007: { reason: "rate_limited" },
  130429: { reason: "rate_limited" },
  131056: { reason: "rate_limited" },
  // Window and recipient
  131047: { reason: "outside_24h_window" },
  131026: { reason: "recipient_unreachable" },
  131021: { reason: "recipient_unreachable" },
  // A BSUID recipient for a message only a phone can get (authentication templates; max-price marketing).
  131062: { reason: "recipient_phone_required" },
  // The contact stopped marketing messages from the business (also added to the account's suppression list).
  131050: { reason: "recipient_opted_out" },
  // Per-user marketing limits and experiments
  131049: { reason: "delivery_limited" },
  131030: { reason: "recipient_unreachable" },
  130472: { reason: "marketing_experiment" },
  // Account state
  131042: { reason: "payment_issue" },
  131031: { reason: "account_restricted" },
  131037: { reason: "account_restricted" },
  368: { reason: "account_restricted" },
  // Spam rate limit: a restriction on our business number, not on the recipient.
  131048: { reason: "account_restricted" },
  130497: { reason: "account_restricted" },
  133010: { reason: "account_restricted" },
  // Templates
  132000: { reason: "template_params_mismatch" },
  132001: { reason: "template_not_found" },
  132005: { reason: "variable_too_long" },
  132007: { reason: "invalid_template" },
  132015: { reason: "template_paused" },
  132016: { reason: "invalid_template" },
  132018: { reason: "variable_bad_format" },
  132012: {
    reason: "variable_bad_format",
    byDetails: [
      { pattern: /header.*(received UNKNOWN|missing|required)/i, reason: "template_required_header_media" },
      { pattern: /header/i, reason: "template_header_mismatch" },
    ],
  },
  // Parameters
  131008: {
    reason: "template_params_mismatch",
    byDetails: [
      // A malformed order_status is the gateway's own payload, not the integrator's Pix.
      { pattern: /order_status/i, reason: "provider_rejected" },
      { pattern: /order|pix|payment/i, reason: "invalid_pix_order" },
      { pattern: /otp/i, reason: "invalid_otp" },
    ],
  },
  131009: {
    reason: "variable_bad_format",
    byDetails: [
      { pattern: /order_status/i, reason: "provider_rejected" },
      { pattern: /order|pix|payment/i, reason: "invalid_pix_order" },
      { pattern: /otp/i, reason: "invalid_otp" },
    ],
  },
  100: {
    reason: "provider_rejected",
    byDetails: [
      { pattern: /parameter name/i, reason: "template_params_mismatch" },
      // "Param image['id'] is not a valid whatsapp business account media attachment ID" (meta-messages.md §2.6).
      { pattern: /media attachment id/i, reason: "media_unavailable" },
    ],
  },
  // The Marketing Messages API (meta-2026 §7.2, §7.4): a template of another category, one still syncing or not
  // eligible, a business not onboarded (STRICT), and /messages refusing marketing templates for the WABA.
  134100: { reason: "invalid_template" },
  134101: { reason: "template_syncing" },
  134102: { reason: "template_not_eligible" },
  131055: { reason: "marketing_messages_unavailable" },
  131063: { reason: "marketing_messages_required" },
  // Payments (meta-2026 §6, App. B 10: the Cloud API numbers are unverified)
  2040: { reason: "payment_not_supported" },
  2046: { reason: "order_transition_invalid" },
  2047: { reason: "order_cancel_refused" },
  // Thread control (meta-late-2026 §5; the code is a partner's report): the action does not fit who holds the thread.
  2494191: { reason: "thread_control_not_permitted" },
  // Our own credentials or Meta's availability: a refusal, but not the caller's fault
  0: { reason: "provider_unavailable" },
  1: { reason: "provider_unavailable" },
  2: { reason: "provider_unavailable" },
  3: { reason: "provider_unavailable" },
  10: { reason: "provider_unavailable" },
  190: { reason: "provider_unavailable" },
  200: { reason: "provider_unavailable" },
  131000: { reason: "provider_unavailable" },
  131016: { reason: "provider_unavailable" },
  131057: { reason: "provider_unavailable" },
  133004: { reason: "provider_unavailable" },
};

/** The stable code for a Meta error; unknown codes are `provider_rejected`. */
export function mapMetaError(code: number, details?: string | null): ErrorCode {
  const rule = META_ERROR_MAP[code];
  if (!rule) return "provider_rejected";
  if (details && rule.byDetails) {
    for (const refinement of rule.byDetails) if (refinement.pattern.test(details)) return refinement.reason;
  }
  return rule.reason;
}
