import type { AccountEventField } from "@gw/meta";

/**
 * What Meta's account and number health webhooks mean for the gateway (meta-2026 §3, §5; docs/decisions.md,
 * "Account and number health (issue 18)"). Pure: reads a stored event's field and value, decides nothing else.
 */

/** What an event asks the gateway to do. */
export type HealthAction =
  /** phone_number_quality_update THROUGHPUT_UPGRADE: the number now sends at 1,000 messages/s. */
  | { kind: "throughput_upgrade" }
  /** The number's quality dropped to low: its running and scheduled campaigns pause. */
  | { kind: "quality_drop"; detail: string }
  /** The WABA was restricted, flagged for a violation: its numbers' campaigns pause (sends in the window go on). */
  | { kind: "restriction"; cause: string }
  /** Banned, deleted or disconnected: every send from the WABA's numbers is refused and its campaigns pause. */
  | { kind: "block"; cause: string }
  /** Reinstated or reconnected: lifts a block (any block, or only one caused by the events listed). */
  | { kind: "lift"; lifts: "any" | readonly string[] }
  | { kind: "none" };

/** Meta's throughput after THROUGHPUT_UPGRADE (meta-2026 §5.1). */
export const HIGH_THROUGHPUT_RATE = 1_000;

/** Legacy quality events (pre-2025, unverified): the number's quality went low and its limit may drop. */
const QUALITY_DROP_EVENTS: ReadonlySet<string> = new Set(["FLAGGED", "DOWNGRADE"]);
/** A quality given in the payload (not in Meta's 2026 shape; read when present): these mean low. */
const LOW_QUALITY: ReadonlySet<string> = new Set(["RED", "LOW"]);

/** Events that stop every send of the WABA, and what each means (a Portuguese clause). */
const BLOCK_CAUSES: Record<string, (wabaId: string) => string> = {
  ACCOUNT_DELETED: (waba) => `a conta WhatsApp Business ${waba} foi excluída na Meta (ACCOUNT_DELETED)`,
  ACCOUNT_OFFBOARDED: (waba) => `a conta WhatsApp Business ${waba} foi desligada desta plataforma (ACCOUNT_OFFBOARDED)`,
  PARTNER_REMOVED: (waba) =>
    `a conta WhatsApp Business ${waba} removeu esta plataforma como parceira na Meta (PARTNER_REMOVED)`,
  PARTNER_APP_UNINSTALLED: (waba) =>
    `o aplicativo desta plataforma foi desinstalado da conta WhatsApp Business ${waba} (PARTNER_APP_UNINSTALLED)`,
};

/** Events that lift a block: a reinstatement or reconnection lifts any; a partner added back, only its removal. */
const LIFTS: Record<string, "any" | readonly string[]> = {
  ACCOUNT_RECONNECTED: "any",
  PARTNER_ADDED: ["PARTNER_REMOVED"],
  PARTNER_APP_INSTALLED: ["PARTNER_APP_UNINSTALLED"],
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

/**
 * The value to read: Meta's own examples sometimes wrap it once more, with `field` or `object` beside the real
 * value (meta-2026 §3.1). The stored value stays as sent.
 */
export function payloadOf(value: Record<string, unknown>): Record<string, unknown> {
  const inner = value.value;
  if (isRecord(inner) && typeof value.event !== "string" && (typeof value.field === "string" || "object" in value))
    return inner;
  return value;
}

/** `value.event` as sent, or null when the field carries none. */
export function eventName(value: Record<string, unknown>): string | null {
  return text(payloadOf(value).event);
}

/** The quality a payload states (quality_rating or current_quality), upper-cased; null when none. */
export function reportedQuality(value: Record<string, unknown>): string | null {
  const payload = payloadOf(value);
  return (text(payload.quality_rating) ?? text(payload.current_quality))?.toUpperCase() ?? null;
}

/** Meta's legacy limits as numbers (max_daily_conversation_per_phone; -1 = unlimited) and their tier names. */
const LIMIT_TIERS: Record<number, string> = {
  50: "TIER_50",
  250: "TIER_250",
  1000: "TIER_1K",
  2000: "TIER_2K",
  10000: "TIER_10K",
  100000: "TIER_100K",
  [-1]: "TIER_UNLIMITED",
};

function limitText(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return LIMIT_TIERS[value] ?? String(value);
  const given = text(value);
  if (given === null) return null;
  return /^-?\d+$/.test(given) ? (LIMIT_TIERS[Number(given)] ?? given) : given.toUpperCase();
}

/**
 * The messaging limit an event reports (TIER_2K, TIER_UNLIMITED...; Meta's integers named as tiers): the 2026 key
 * `max_daily_conversations_per_business` (string or integer), else the legacy `current_limit` or
 * `max_daily_conversation_per_phone` (meta-2026 §3.7). Null when none.
 */
export function reportedLimit(value: Record<string, unknown>): string | null {
  const payload = payloadOf(value);
  return (
    limitText(payload.max_daily_conversations_per_business) ??
    limitText(payload.current_limit) ??
    limitText(payload.max_daily_conversation_per_phone)
  );
}

/** business_capability_update's cap on numbers (per WABA, or per business while the limit is 250). */
export function reportedMaxPhoneNumbers(value: Record<string, unknown>): number | null {
  const payload = payloadOf(value);
  for (const key of ["max_phone_numbers_per_waba", "max_phone_numbers_per_business"]) {
    const given = payload[key];
    if (typeof given === "number" && Number.isInteger(given)) return given;
  }
  return null;
}

/** The display number a phone_number_quality_update names, digits only; null when none. */
export function displayNumberDigits(value: Record<string, unknown>): string | null {
  const given = text(payloadOf(value).display_phone_number);
  const digits = given?.replace(/\D/g, "") ?? "";
  return digits === "" ? null : digits;
}

function banState(payload: Record<string, unknown>): string | null {
  const info = payload.ban_info;
  return (
    (text(isRecord(info) ? info.waba_ban_state : undefined) ?? text(payload.waba_ban_state))?.toUpperCase() ?? null
  );
}

/** The restriction types or the violation type Meta named, for the reason's parenthesis. */
function restrictionDetail(payload: Record<string, unknown>): string | null {
  const violation = payload.violation_info;
  const type = isRecord(violation) ? text(violation.violation_type) : null;
  if (type) return type;
  const restrictions = Array.isArray(payload.restriction_info) ? payload.restriction_info : [];
  const types = restrictions.map((item) => (isRecord(item) ? text(item.restriction_type) : null));
  const named = types.filter((item): item is string => item !== null);
  return named.length > 0 ? named.join(", ") : null;
}

/** What the event asks of the gateway (anything it does not know asks nothing: stored and shown only). */
export function healthAction(field: AccountEventField, wabaId: string, value: Record<string, unknown>): HealthAction {
  const payload = payloadOf(value);
  const event = text(payload.event)?.toUpperCase() ?? null;
  if (field === "phone_number_quality_update") {
    if (event === "THROUGHPUT_UPGRADE") return { kind: "throughput_upgrade" };
    const quality = reportedQuality(value);
    if (quality !== null && LOW_QUALITY.has(quality)) return { kind: "quality_drop", detail: `qualidade ${quality}` };
    if (event !== null && QUALITY_DROP_EVENTS.has(event)) return { kind: "quality_drop", detail: `evento ${event}` };
    return { kind: "none" };
  }
  if (field !== "account_update" || event === null) return { kind: "none" };
  if (event === "ACCOUNT_RESTRICTION" || event === "ACCOUNT_VIOLATION") {
    const detail = restrictionDetail(payload);
    const what =
      event === "ACCOUNT_RESTRICTION"
        ? `a Meta restringiu a conta WhatsApp Business ${wabaId}`
        : `a Meta registrou uma violação de política na conta WhatsApp Business ${wabaId}`;
    return { kind: "restriction", cause: `${what} (${event}${detail ? `: ${detail}` : ""})` };
  }
  if (event === "DISABLED_UPDATE") {
    const state = banState(payload);
    if (state === "DISABLE")
      return {
        kind: "block",
        cause: `a Meta desativou a conta WhatsApp Business ${wabaId} (DISABLED_UPDATE: DISABLE)`,
      };
    if (state === "REINSTATE") return { kind: "lift", lifts: "any" };
    // SCHEDULE_FOR_DISABLE (a ban announced for a date) and unknown states: a notice, nothing stops yet.
    return { kind: "none" };
  }
  const block = BLOCK_CAUSES[event];
  if (block) return { kind: "block", cause: block(wabaId) };
  const lifts = LIFTS[event];
  if (lifts) return { kind: "lift", lifts };
  return { kind: "none" };
}

/** The fields whose events change a WABA's template catalogue (a send must read it again). */
export const TEMPLATE_CATALOGUE_FIELDS: ReadonlySet<AccountEventField> = new Set<AccountEventField>([
  "message_template_components_update",
  "template_category_update",
]);
