import { displayPhoneNumber } from "../ids.ts";
import type { SandboxState } from "../state.ts";
import type { PhoneNumberSettings } from "../types.ts";
import { portfolioOf, portfolioSettings } from "../users.ts";
import { fbtraceId, type GraphResult } from "./errors.ts";

/** Fields Meta answers when the call names none (messaging_limit_tier only when asked, as Meta). */
const DEFAULT_FIELDS = [
  "verified_name",
  "code_verification_status",
  "display_phone_number",
  "quality_rating",
  "platform_type",
  "throughput",
  "id",
];

/** `15550001234` → `+1 555-000-1234`, the way Meta formats display_phone_number on this node. */
function formatDisplay(digits: string): string {
  const us = /^1(\d{3})(\d{3})(\d{4})$/.exec(digits);
  return us ? `+1 ${us[1]}-${us[2]}-${us[3]}` : `+${digits}`;
}

/**
 * A number's settings: what POST /_sandbox/numbers (or a quality / capability webhook) gave, over the defaults; the
 * messaging limit defaults to its portfolio's (business_capability_update), else TIER_1K.
 */
export function phoneNumberSettings(state: SandboxState, phoneNumberId: string): PhoneNumberSettings {
  return {
    display_phone_number: formatDisplay(displayPhoneNumber(phoneNumberId)),
    verified_name: "Empresa Sandbox",
    quality_rating: "GREEN",
    messaging_limit_tier: portfolioSettings(state, portfolioOf(state, phoneNumberId)).messagingLimit ?? "TIER_1K",
    throughput_level: "STANDARD",
    ...state.config.numbers[phoneNumberId],
  };
}

/** The WhatsAppBusinessPhoneNumber node, every field the sandbox knows. */
export function phoneNumberNode(state: SandboxState, phoneNumberId: string): Record<string, unknown> {
  const settings = phoneNumberSettings(state, phoneNumberId);
  return {
    id: phoneNumberId,
    display_phone_number: settings.display_phone_number,
    verified_name: settings.verified_name,
    quality_rating: settings.quality_rating,
    messaging_limit_tier: settings.messaging_limit_tier,
    // The 2025 name of the (portfolio) messaging limit; messaging_limit_tier is deprecated (meta-2026 §5.3).
    whatsapp_business_manager_messaging_limit: settings.messaging_limit_tier,
    throughput: { level: settings.throughput_level },
    code_verification_status: "VERIFIED",
    platform_type: "CLOUD_API",
    name_status: "APPROVED",
    status: "CONNECTED",
    account_mode: "LIVE",
    is_official_business_account: false,
  };
}

/**
 * GET /{version}/{phone-number-id}?fields=…: the named fields plus `id`; an unknown field is Meta's (#100) refusal.
 * The sandbox has no phone registry: every id it is asked about is one of its numbers.
 */
export function phoneNumberResult(state: SandboxState, phoneNumberId: string, requestUrl: URL): GraphResult {
  const node = phoneNumberNode(state, phoneNumberId);
  const asked = requestUrl.searchParams.get("fields");
  const fields = asked
    ? asked
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : DEFAULT_FIELDS;
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    if (!(field in node)) return unknownFieldResult(field);
    body[field] = node[field];
  }
  body.id = phoneNumberId;
  return { status: 200, body };
}

/** Meta's answer to a field the node does not have: code 100 with the field in the message, no `error_data`. */
function unknownFieldResult(field: string): GraphResult {
  return {
    status: 400,
    body: {
      error: {
        message: `(#100) Tried accessing nonexisting field (${field}) on node type (WhatsAppBusinessPhoneNumber)`,
        type: "OAuthException",
        code: 100,
        fbtrace_id: fbtraceId(),
      },
    },
  };
}
