import type { Redelivery, SandboxState } from "./state.ts";
import type { AnyWebhookPayload } from "./webhooks.ts";

/** One payload waiting for a redelivery, as GET /_sandbox/webhooks/pending lists it. */
export interface PendingRedelivery {
  /** `delivery_id` of its attempts in GET /_sandbox/webhooks. */
  id: number;
  kind: Redelivery["kind"];
  /** `auto`: statuses the sandbox emitted after a send; `control`: a POST /_sandbox/… call (inbound, statuses...). */
  source: Redelivery["source"];
  /** POSTs made so far. */
  attempts: number;
  first_attempt_at: string;
  /** Null while an attempt is in flight. */
  next_attempt_at: string | null;
  /** Where the next attempt goes: the webhook URL configured now. */
  url: string | null;
  last_status: number | null;
  last_error: string | null;
  /** Later statuses of its messages that wait for it to settle (per-message order). */
  held_statuses: number;
  summary: {
    /** Empty for WABA-level payloads (templates, account health), which name no number in `metadata`. */
    phone_number_id: string;
    /** `recipient_id` is null for a status without it (a BSUID send whose phone cannot be shared). */
    statuses: { id: string; status: string; recipient_id: string | null }[];
    /** `from` is null for a message without it (a user whose phone cannot be shared); `from_user_id` when present. */
    messages: { id: string; from: string | null; from_user_id?: string; type: string }[];
  };
}

function text(value: unknown): string {
  return typeof value === "string" ? value : String(value);
}

function optionalText(value: unknown): string | null {
  return value === undefined ? null : text(value);
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** The business number of a messages-like change (`value.metadata`); WABA-level changes have none. */
function numberOf(change: AnyWebhookPayload["entry"][number]["changes"][number] | undefined): string | undefined {
  if (!change) return undefined;
  const value: unknown = change.value;
  if (typeof value !== "object" || value === null || !("metadata" in value)) return undefined;
  const metadata: unknown = value.metadata;
  if (typeof metadata !== "object" || metadata === null || !("phone_number_id" in metadata)) return undefined;
  return typeof metadata.phone_number_id === "string" ? metadata.phone_number_id : undefined;
}

/** Pending redeliveries, oldest first failure first. */
export function pendingRedeliveries(state: SandboxState): PendingRedelivery[] {
  return [...state.redeliveries.values()].map((delivery) => {
    const change = delivery.payload.entry[0]?.changes[0];
    // Template and user_preferences payloads (not messages-shaped, unlike `standby`) carry no statuses nor messages: their summary is (mostly) empty.
    const value = change?.field === "messages" || change?.field === "standby" ? change.value : undefined;
    const statuses = (value?.statuses ?? []).map((s) => ({
      id: text(s.id),
      status: text(s.status),
      recipient_id: optionalText(s.recipient_id),
    }));
    let held = 0;
    if (delivery.source === "auto") {
      for (const id of new Set(statuses.map((s) => s.id))) held += state.lanes.get(id)?.waiting.length ?? 0;
    }
    return {
      id: delivery.id,
      kind: delivery.kind,
      source: delivery.source,
      attempts: delivery.attempts,
      first_attempt_at: new Date(delivery.firstAttemptAt).toISOString(),
      next_attempt_at: iso(delivery.nextAttemptAt),
      url: state.config.webhookUrl ?? null,
      last_status: delivery.lastStatus,
      last_error: delivery.lastError,
      held_statuses: held,
      summary: {
        phone_number_id: numberOf(change) ?? "",
        statuses,
        messages: (value?.messages ?? []).map((m) => ({
          id: text(m.id),
          from: optionalText(m.from),
          ...(m.from_user_id === undefined ? {} : { from_user_id: text(m.from_user_id) }),
          type: text(m.type),
        })),
      },
    };
  });
}
