// Event types of spec 2.7, 6.2 and 6.3 and of account.update (issue 18), and a parser that checks a signed body
// against them.

/** Spec 2.7. */
export interface WebhookEnvelope<E extends string, D> {
  event: E;
  /** ISO 8601 UTC; when the event entered the queue, fixed across attempts. */
  occurred_at: string;
  /** Repeats on retries of the same event: deduplicate on integration + delivery_id. */
  delivery_id: string;
  data: D;
}

export const MESSAGE_STATUSES = ["sent", "delivered", "read", "failed"] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** Spec 3.1. `failed` is a separate outcome: never compare ranks numerically to handle it. */
export const STATUS_RANK = { failed: 1, sent: 2, delivered: 3, read: 4 } as const satisfies Record<
  MessageStatus,
  number
>;

export interface MessageStatusError {
  /** The provider's number, e.g. 131026. */
  code: number;
  message: string;
  /** The service's stable code (spec 7). */
  reason: string;
}

/** What the provider reported it charges for a message (per-message pricing), verbatim. */
export interface MessagePricing {
  /** `PMP`. */
  pricing_model: string | null;
  /** marketing, utility, authentication, service, ... (new values appear: keep them as text). */
  category: string | null;
  /** `regular` is charged; free_customer_service, free_entry_point, ... are not. */
  type: string | null;
}

interface MessageStatusCommon {
  message_id: string;
  /** The recipient as named in the send: a phone's digits, or a business-scoped user id (BSUID). */
  to: string;
  /** The recipient's BSUID when known (added in 2026; absent from events sent before). */
  recipient_user_id?: string | null;
  phone_number_id: string;
  client_ref: string | null;
  campaign_id: string | null;
  /** On the one status that carried it (usually `sent`), else null (added in 2026). */
  pricing?: MessagePricing | null;
}

/** Spec 6.2: `error` is filled only when the status is `failed`. */
export type MessageStatusData = MessageStatusCommon &
  (
    | { status: "sent"; status_rank: 2; error: null }
    | { status: "delivered"; status_rank: 3; error: null }
    | { status: "read"; status_rank: 4; error: null }
    | { status: "failed"; status_rank: 1; error: MessageStatusError }
  );

export const MESSAGE_RECEIVED_TYPES = [
  "text",
  "image",
  "audio",
  "video",
  "document",
  "sticker",
  "location",
  "contacts",
  "button",
  "interactive",
  "unsupported",
] as const;
export type MessageReceivedType = (typeof MESSAGE_RECEIVED_TYPES)[number];

/** Spec 6.3, and the sender fields Meta added in 2026. */
export interface MessageReceivedData {
  message_id: string;
  /**
   * The sender's phone; null only when the provider withheld it (a user with a WhatsApp username who has not shared
   * the number): reply to `from_user_id` then.
   */
  from: string | null;
  /** The sender's business-scoped user id (BSUID, `BR.1502576394655843`); a valid `to` for a reply. */
  from_user_id?: string | null;
  /** The sender's parent BSUID (`BR.ENT.…`), when the business enabled them. */
  from_parent_user_id?: string | null;
  /** The sender's WhatsApp username: display only, it can change. */
  from_username?: string | null;
  phone_number_id: string;
  type: MessageReceivedType;
  text: string | null;
  media_id: string | null;
  media_mime: string | null;
  media_filename: string | null;
  reply_to_message_id: string | null;
  contact_name: string | null;
  /** The provider's time of the message (the envelope's `occurred_at` is the queue-entry time). */
  occurred_at: string;
  /** Events may arrive out of order: keep the greatest value per contact and business number. */
  window_expires_at: string;
}

/** What the gateway did about an account or number health event. */
export interface AccountUpdateEffects {
  /**
   * For a ban or disconnection and for a reinstatement or reconnection: whether sends from the WABA's numbers are
   * refused now (`account_disabled`); null for every other event.
   */
  sending_blocked: boolean | null;
  /** Campaigns the gateway paused because of the event; they stay paused until someone resumes them. */
  paused_campaign_ids: string[];
  /** The number's new messaging rate when the event changed it (1000 after THROUGHPUT_UPGRADE), else null. */
  messaging_rate_per_second: number | null;
}

/** One of Meta's account and number health webhooks, as Meta sent it, with what the gateway did (opt-in event). */
export interface AccountUpdateData {
  /** The gateway's id of the stored event. */
  account_event_id: string;
  waba_id: string;
  /** account_update, phone_number_quality_update, business_capability_update, message_template_components_update, template_category_update or account_alerts. */
  field: string;
  /** Meta's `value.event` (unknown values included); null when the field carries none. */
  event: string | null;
  /** The number a phone_number_quality_update is about, else null. */
  phone_number_id: string | null;
  /** Meta's time of the change; events of one WABA may arrive out of order. */
  occurred_at: string;
  /** Meta's value, as sent. */
  value: Record<string, unknown>;
  effects: AccountUpdateEffects;
}

export type MessageStatusEvent = WebhookEnvelope<"message.status", MessageStatusData>;
export type MessageReceivedEvent = WebhookEnvelope<"message.received", MessageReceivedData>;
export type AccountUpdateEvent = WebhookEnvelope<"account.update", AccountUpdateData>;
export type GatewayWebhookEvent = MessageStatusEvent | MessageReceivedEvent | AccountUpdateEvent;
export type WebhookEventName = GatewayWebhookEvent["event"];

export const WEBHOOK_EVENTS = [
  "message.status",
  "message.received",
  "account.update",
] as const satisfies readonly WebhookEventName[];

export type WebhookPayloadErrorCode = "invalid_json" | "unknown_event" | "invalid_payload";

export class WebhookPayloadError extends Error {
  override readonly name = "WebhookPayloadError";
  constructor(
    readonly code: WebhookPayloadErrorCode,
    message: string,
  ) {
    super(message);
  }
}

type Json = Record<string, unknown>;

/**
 * Parses a VERIFIED raw body into the typed union. Throws `WebhookPayloadError` on invalid JSON, an
 * unknown `event`, or a documented field with the wrong type; fields added later are kept, not refused.
 */
export function parseWebhookEvent(rawBody: Buffer | Uint8Array | string): GatewayWebhookEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof rawBody === "string" ? rawBody : Buffer.from(rawBody).toString("utf8"));
  } catch {
    throw new WebhookPayloadError("invalid_json", "O corpo do webhook não é um JSON válido.");
  }
  if (!isObject(parsed)) throw invalid("o corpo não é um objeto JSON");
  const event = parsed.event;
  if (!isOneOf(event, WEBHOOK_EVENTS)) {
    throw new WebhookPayloadError("unknown_event", `Evento de webhook desconhecido: ${JSON.stringify(event)}.`);
  }
  expectString(parsed, "occurred_at", "");
  expectString(parsed, "delivery_id", "");
  const data = parsed.data;
  if (!isObject(data)) throw invalid("o campo data não é um objeto");
  if (event === "message.status") checkStatusData(data);
  else if (event === "message.received") checkReceivedData(data);
  else checkAccountUpdateData(data);
  return parsed as unknown as GatewayWebhookEvent;
}

function checkAccountUpdateData(data: Json): void {
  for (const key of ["account_event_id", "waba_id", "field", "occurred_at"]) expectString(data, key, "data.");
  for (const key of ["event", "phone_number_id"]) expectNullableString(data, key, "data.");
  if (!isObject(data.value)) throw invalid("data.value deve ser um objeto");
  const effects = data.effects;
  if (!isObject(effects)) throw invalid("data.effects deve ser um objeto");
  if (effects.sending_blocked !== null && typeof effects.sending_blocked !== "boolean")
    throw invalid("data.effects.sending_blocked deve ser true, false ou null");
  if (!Array.isArray(effects.paused_campaign_ids) || !effects.paused_campaign_ids.every((id) => typeof id === "string"))
    throw invalid("data.effects.paused_campaign_ids deve ser uma lista de strings");
  const rate = effects.messaging_rate_per_second;
  if (rate !== null && (typeof rate !== "number" || !Number.isInteger(rate)))
    throw invalid("data.effects.messaging_rate_per_second deve ser um inteiro ou null");
}

function checkStatusData(data: Json): void {
  for (const key of ["message_id", "to", "phone_number_id"]) expectString(data, key, "data.");
  for (const key of ["client_ref", "campaign_id"]) expectNullableString(data, key, "data.");
  expectOptionalNullableString(data, "recipient_user_id", "data.");
  if (data.pricing !== undefined && data.pricing !== null) {
    if (!isObject(data.pricing)) throw invalid("data.pricing deve ser um objeto ou null");
    for (const key of ["pricing_model", "category", "type"]) expectNullableString(data.pricing, key, "data.pricing.");
  }
  const status = data.status;
  if (!isOneOf(status, MESSAGE_STATUSES)) throw invalid(`data.status inválido: ${JSON.stringify(status)}`);
  if (data.status_rank !== STATUS_RANK[status]) {
    throw invalid(`data.status_rank ${JSON.stringify(data.status_rank)} não corresponde ao status ${status}`);
  }
  const error = data.error;
  if (status === "failed") {
    if (!isObject(error)) throw invalid("data.error deve ser um objeto quando o status é failed");
    if (typeof error.code !== "number") throw invalid("data.error.code deve ser um número");
    expectString(error, "message", "data.error.");
    expectString(error, "reason", "data.error.");
  } else if (error !== null) {
    throw invalid("data.error deve ser null quando o status não é failed");
  }
}

function checkReceivedData(data: Json): void {
  for (const key of ["message_id", "phone_number_id", "occurred_at", "window_expires_at"])
    expectString(data, key, "data.");
  expectNullableString(data, "from", "data.");
  for (const key of ["from_user_id", "from_parent_user_id", "from_username"])
    expectOptionalNullableString(data, key, "data.");
  if (data.from === null && typeof data.from_user_id !== "string")
    throw invalid("data.from ou data.from_user_id deve identificar o remetente");
  for (const key of ["text", "media_id", "media_mime", "media_filename", "reply_to_message_id", "contact_name"]) {
    expectNullableString(data, key, "data.");
  }
  if (!isOneOf(data.type, MESSAGE_RECEIVED_TYPES)) throw invalid(`data.type inválido: ${JSON.stringify(data.type)}`);
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isOneOf<T extends string>(value: unknown, values: readonly T[]): value is T {
  return typeof value === "string" && (values as readonly string[]).includes(value);
}

function expectString(object: Json, key: string, path: string): void {
  if (typeof object[key] !== "string") throw invalid(`${path}${key} deve ser uma string`);
}

function expectNullableString(object: Json, key: string, path: string): void {
  const value = object[key];
  if (value !== null && typeof value !== "string") throw invalid(`${path}${key} deve ser uma string ou null`);
}

/** A field added after the first release: absent in older events, else a string or null. */
function expectOptionalNullableString(object: Json, key: string, path: string): void {
  if (object[key] !== undefined) expectNullableString(object, key, path);
}

function invalid(detail: string): WebhookPayloadError {
  return new WebhookPayloadError("invalid_payload", `Corpo do webhook fora do contrato: ${detail}.`);
}
