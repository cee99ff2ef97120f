import { describe, expect, it } from "@jest/globals";
import { ApiError, ERROR_REGISTRY, META_ERROR_MAP, isErrorCode, mapMetaError } from "@gw/errors";
import type { ErrorCode } from "@gw/errors";

// The reviewed expectation for every Meta code the service knows: Meta code -> stable code -> HTTP status.
// Written by hand (not derived from META_ERROR_MAP) so a changed mapping fails here until it is reviewed.
const EXPECTED: [metaCode: number, reason: ErrorCode, status: number][] = [
  [4, "rate_limited", 429],
  [80007, "rate_limited", 429],
  [130429, "rate_limited", 429],
  [131056, "rate_limited", 429],
  [131047, "outside_24h_window", 422],
  [131026, "recipient_unreachable", 422],
  [131021, "recipient_unreachable", 422],
  [131050, "recipient_opted_out", 422],
  [131062, "recipient_phone_required", 422],
  [131049, "delivery_limited", 422],
  [131048, "account_restricted", 422],
  [130497, "account_restricted", 422],
  [131030, "recipient_unreachable", 422],
  [130472, "marketing_experiment", 422],
  [131042, "payment_issue", 422],
  [131031, "account_restricted", 422],
  [131037, "account_restricted", 422],
  [368, "account_restricted", 422],
  [133010, "account_restricted", 422],
  [132000, "template_params_mismatch", 422],
  [132001, "template_not_found", 422],
  [132005, "variable_too_long", 422],
  [132007, "invalid_template", 422],
  [132015, "template_paused", 422],
  [132016, "invalid_template", 422],
  [132018, "variable_bad_format", 422],
  [132012, "variable_bad_format", 422],
  [131008, "template_params_mismatch", 422],
  [131009, "variable_bad_format", 422],
  [100, "provider_rejected", 422],
  [0, "provider_unavailable", 503],
  [1, "provider_unavailable", 503],
  [2, "provider_unavailable", 503],
  [3, "provider_unavailable", 503],
  [10, "provider_unavailable", 503],
  [190, "provider_unavailable", 503],
  [200, "provider_unavailable", 503],
  [131000, "provider_unavailable", 503],
  [131016, "provider_unavailable", 503],
  [131057, "provider_unavailable", 503],
  [133004, "provider_unavailable", 503],
  [2040, "payment_not_supported", 422],
  [2046, "order_transition_invalid", 422],
  [2047, "order_cancel_refused", 422],
  [134100, "invalid_template", 422],
  [134101, "template_syncing", 422],
  [134102, "template_not_eligible", 422],
  // Thread control (Conversation Routing): the action does not fit who holds the conversation (a partner's report).
  [2494191, "thread_control_not_permitted", 409],
  [131055, "marketing_messages_unavailable", 422],
  [131063, "marketing_messages_required", 422],
];

// Refinements on `error_data.details`; the detail texts are those seen in Meta answers (reference C.2) or
// close paraphrases of them.
const DETAIL_CASES: [metaCode: number, details: string, reason: ErrorCode][] = [
  [132012, "header: Format mismatch, expected IMAGE, received UNKNOWN", "template_required_header_media"],
  [132012, "header: parameter is missing", "template_required_header_media"],
  [132012, "Header media is required for this template", "template_required_header_media"],
  [132012, "header: Format mismatch, expected DOCUMENT, received IMAGE", "template_header_mismatch"],
  [132012, "body: parameter 1 has an invalid format", "variable_bad_format"],
  [131008, "Required parameter order_details is missing", "invalid_pix_order"],
  [131008, "Required parameter payment_settings is missing", "invalid_pix_order"],
  [131008, "Required parameter pix_dynamic_code is missing", "invalid_pix_order"],
  [131008, "Required parameter is missing: body param 2", "template_params_mismatch"],
  [131008, "otp: the one-time password is required", "invalid_otp"],
  [131009, "Invalid order total amount", "invalid_pix_order"],
  [131009, "Pix key is invalid for key_type CNPJ", "invalid_pix_order"],
  [131009, "OTP code contains unsupported characters", "invalid_otp"],
  [131009, "Parameter value is not valid", "variable_bad_format"],
  // An order_status message is the gateway's own payload (issue 28): never the integrator's invalid Pix.
  [131009, "order_status: unknown reference_id", "provider_rejected"],
  [131008, "order_status: body.text is required", "provider_rejected"],
  [100, "Parameter name is missing or empty", "template_params_mismatch"],
  [100, "(#100) The parameter to is required.", "provider_rejected"],
];

describe("Meta error mapping", () => {
  it("the reviewed table covers exactly the codes of META_ERROR_MAP", () => {
    const mapped = Object.keys(META_ERROR_MAP)
      .map(Number)
      .sort((a, b) => a - b);
    const reviewed = EXPECTED.map(([code]) => code).sort((a, b) => a - b);
    expect(reviewed).toEqual(mapped);
  });

  it.each(EXPECTED)("Meta %i -> %s -> HTTP %i", (metaCode, reason, status) => {
    expect(mapMetaError(metaCode)).toBe(reason);
    expect(mapMetaError(metaCode, null)).toBe(reason);
    expect(mapMetaError(metaCode, "")).toBe(reason);
    expect(META_ERROR_MAP[metaCode]?.reason).toBe(reason);
    expect(ERROR_REGISTRY[reason].status).toBe(status);
    const error = new ApiError(reason);
    expect(error.status).toBe(status);
    expect(error.toBody()).toEqual({
      success: false,
      error: { code: reason, message: ERROR_REGISTRY[reason].message },
    });
  });

  it.each(DETAIL_CASES)("Meta %i with details %j -> %s", (metaCode, details, reason) => {
    expect(mapMetaError(metaCode, details)).toBe(reason);
  });

  it("details do not refine codes that have no refinement", () => {
    expect(mapMetaError(131047, "header order pix otp")).toBe("outside_24h_window");
    expect(mapMetaError(130429, "Parameter name is missing or empty")).toBe("rate_limited");
  });

  it.each([5, 999, 132068, 2494055, -1])("unknown Meta code %i -> provider_rejected (422)", (metaCode) => {
    expect(mapMetaError(metaCode)).toBe("provider_rejected");
    expect(mapMetaError(metaCode, "header: Format mismatch")).toBe("provider_rejected");
    expect(ERROR_REGISTRY.provider_rejected.status).toBe(422);
  });

  it("every refinement points at a registered code", () => {
    for (const rule of Object.values(META_ERROR_MAP)) {
      expect(isErrorCode(rule.reason)).toBe(true);
      for (const refinement of rule.byDetails ?? []) expect(isErrorCode(refinement.reason)).toBe(true);
    }
  });
});

describe("Error registry", () => {
  const entries = Object.entries(ERROR_REGISTRY) as [ErrorCode, { status: number; message: string }][];

  it.each(entries)("%s has a Portuguese sentence ending with a period", (code, entry) => {
    expect(entry.message.trim()).toBe(entry.message);
    expect(entry.message.length).toBeGreaterThan(10);
    // Starts with a capital letter, ends with a period.
    expect(entry.message).toMatch(/^[A-ZÀ-Ú]/u);
    expect(entry.message.endsWith(".")).toBe(true);
    // Portuguese, not an English leftover: at least one common Portuguese word or an accented letter.
    expect(entry.message).toMatch(/[áàâãéêíóôõúç]|\b(não|de|do|da|para|com|uma?|está|foi|os?|as?)\b/iu);
    expect(entry.message).not.toMatch(/\b(the|is|please|must|cannot|should|invalid)\b/i);
    expect(code).toMatch(/^[a-z0-9_]+$/);
  });

  it.each(entries)("%s has an HTTP error status", (_code, entry) => {
    // 403: a key without the operation's scope (insufficient_scope, issue 35), the one added status.
    expect([400, 401, 403, 404, 409, 410, 413, 415, 422, 429, 500, 503]).toContain(entry.status);
  });

  it("isErrorCode accepts registered codes only", () => {
    expect(isErrorCode("template_paused")).toBe(true);
    expect(isErrorCode("toString")).toBe(false);
    expect(isErrorCode("nope")).toBe(false);
  });
});
