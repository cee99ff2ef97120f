// The events of spec 2.7, 6.2 and 6.3, account.update (issue 18), order.updated (issue 28) and conversation.handover
// (issue 37), as the contract spells
// them (./schema.ts is generated from @gw/contracts' webhook schemas), refined where a type can say more than a JSON
// Schema; and a parser that checks a signed body against them.
import {
  MESSAGE_RECEIVED_TYPES,
  MESSAGE_STATUS_RANK,
  CONVERSATION_HANDLERS,
  MESSAGE_STATUSES,
  ORDER_STATUSES,
  PAYMENT_STATUSES,
  THREAD_HOLDERS,
  WEBHOOK_EVENTS,
  type components,
} from "./schema.ts";

export { MESSAGE_RECEIVED_TYPES, MESSAGE_STATUSES, WEBHOOK_EVENTS };

type Schemas = components["schemas"];

/** Fields added after the first release: absent from the events sent before them. */
type AddedLater<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

/** Spec 2.7: `occurred_at` is when the event entered the queue (fixed across attempts); deduplicate on `delivery_id`. */
export type WebhookEnvelope<E extends string, D> = Omit<Schemas["MessageStatusEvent"], "event" | "data"> & {
  event: E;
  data: D;
};

export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** Spec 3.1. `failed` is a separate outcome: never compare ranks numerically to handle it. */
export const STATUS_RANK = MESSAGE_STATUS_RANK satisfies Record<MessageStatus, number>;

export type MessageStatusError = NonNullable<Schemas["MessageStatusData"]["error"]>;
/** What the provider reported it charges for a message (per-message pricing), verbatim. */
export type MessagePricing = NonNullable<Schemas["MessageStatusData"]["pricing"]>;

/** Each status with its rank, and `error` filled only when the status is `failed` (spec 6.2). */
type StatusOutcome = {
  [S in MessageStatus]: {
    status: S;
    status_rank: (typeof STATUS_RANK)[S];
    error: S extends "failed" ? MessageStatusError : null;
  };
}[MessageStatus];

/** Spec 6.2; `recipient_user_id` and `pricing` were added in 2026. */
export type MessageStatusData = AddedLater<
  Omit<Schemas["MessageStatusData"], "status" | "status_rank" | "error">,
  "recipient_user_id" | "pricing"
> &
  StatusOutcome;

export type MessageReceivedType = (typeof MESSAGE_RECEIVED_TYPES)[number];

/**
 * Spec 6.3; the sender fields other than `from` were added in 2026. The members of payload version 2 (`interactive`,
 * `button`, `location`, `contacts`, `reaction`, `referral`, `forwarded`, `frequently_forwarded`, `media_sha256`,
 * `media_voice`) are optional: an integration on version 1 (the default) never gets them.
 */
export type MessageReceivedData = AddedLater<
  Schemas["MessageReceivedData"],
  "from_user_id" | "from_parent_user_id" | "from_username"
>;

type Received = Schemas["MessageReceivedData"];
/** Payload version 2: the reply button or list row tapped; `id` is the option the send gave it. */
export type ReceivedInteractive = NonNullable<Received["interactive"]>;
/** Payload version 2: a template's quick-reply button tapped. */
export type ReceivedButton = NonNullable<Received["button"]>;
/** Payload version 2: a location shared. */
export type ReceivedLocation = NonNullable<Received["location"]>;
/** Payload version 2: a shared contact card, normalised (lists always present, missing texts null). */
export type ReceivedContact = Schemas["ReceivedContact"];
/** Payload version 2: a reaction to a business message; `emoji` null when it was removed. */
export type ReceivedReaction = NonNullable<Received["reaction"]>;
/** Payload version 2: the click-to-WhatsApp ad or post the message came from. */
export type ReceivedReferral = NonNullable<Received["referral"]>;

/** What the gateway did about an account or number health event. */
export type AccountUpdateEffects = Schemas["AccountUpdateEffects"];
/** One of Meta's account and number health webhooks, as Meta sent it, with what the gateway did (opt-in event). */
export type AccountUpdateData = Schemas["AccountUpdateData"];

/** A Pix order's status pair and the message that changed it (opt-in event, issue 28). */
export type OrderUpdatedData = Schemas["OrderUpdatedData"];

/** Meta moved a conversation between apps (Conversation Routing; opt-in event, issue 37). */
export type ConversationHandoverData = Schemas["ConversationHandoverData"];

/** Who answers a customer changed on the business's side (opt-in event, issue 39). */
export type ConversationUpdatedData = Schemas["ConversationUpdatedData"];

export type MessageStatusEvent = WebhookEnvelope<Schemas["MessageStatusEvent"]["event"], MessageStatusData>;
export type MessageReceivedEvent = WebhookEnvelope<Schemas["MessageReceivedEvent"]["event"], MessageReceivedData>;
export type AccountUpdateEvent = WebhookEnvelope<Schemas["AccountUpdateEvent"]["event"], AccountUpdateData>;
export type OrderUpdatedEvent = WebhookEnvelope<Schemas["OrderUpdatedEvent"]["event"], OrderUpdatedData>;
export type ConversationHandoverEvent = WebhookEnvelope<
  Schemas["ConversationHandoverEvent"]["event"],
  ConversationHandoverData
>;
export type ConversationUpdatedEvent = WebhookEnvelope<
  Schemas["ConversationUpdatedEvent"]["event"],
  ConversationUpdatedData
>;
export type GatewayWebhookEvent =
  | MessageStatusEvent
  | MessageReceivedEvent
  | AccountUpdateEvent
  | OrderUpdatedEvent
  | ConversationHandoverEvent
  | ConversationUpdatedEvent;
export type WebhookEventName = GatewayWebhookEvent["event"];

// Every event of the contract has its type above: a new webhook does not compile until it is added (and parsed).
const _everyEvent: readonly WebhookEventName[] = WEBHOOK_EVENTS;

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
  else if (event === "order.updated") checkOrderUpdatedData(data);
  else if (event === "conversation.handover") checkConversationHandoverData(data);
  else if (event === "conversation.updated") checkConversationUpdatedData(data);
  else checkAccountUpdateData(data);
  return parsed as unknown as GatewayWebhookEvent;
}

function checkOrderUpdatedData(data: Json): void {
  for (const key of ["reference_id", "phone_number_id", "to", "updated_at"]) expectString(data, key, "data.");
  expectNullableString(data, "description", "data.");
  if (!isOneOf(data.order_status, ORDER_STATUSES)) throw invalid("data.order_status inválido");
  if (!isOneOf(data.payment_status, PAYMENT_STATUSES)) throw invalid("data.payment_status inválido");
  if (!isOneOf(data.trigger, ["status_sent", "message_status"] as const)) throw invalid("data.trigger inválido");
  const message = data.message;
  if (!isObject(message)) throw invalid("data.message deve ser um objeto");
  expectString(message, "message_id", "data.message.");
  if (!isOneOf(message.kind, ["order_details", "order_status"] as const)) throw invalid("data.message.kind inválido");
  if (message.message_status !== null && !isOneOf(message.message_status, MESSAGE_STATUSES))
    throw invalid("data.message.message_status inválido");
  if (message.error !== null && !isObject(message.error))
    throw invalid("data.message.error deve ser um objeto ou null");
}

function checkConversationHandoverData(data: Json): void {
  for (const key of ["phone_number_id", "recipient", "occurred_at"]) expectString(data, key, "data.");
  for (const key of ["phone", "user_id", "previous_role", "current_role", "metadata"])
    expectNullableString(data, key, "data.");
  if (!isOneOf(data.type, ["control_passed", "control_taken"] as const)) throw invalid("data.type inválido");
  if (!isOneOf(data.holder, THREAD_HOLDERS)) throw invalid("data.holder inválido");
}

function checkConversationUpdatedData(data: Json): void {
  for (const key of ["change", "phone_number_id", "recipient", "occurred_at"]) expectString(data, key, "data.");
  for (const key of ["phone", "user_id", "note"]) expectNullableString(data, key, "data.");
  if (!isOneOf(data.handler, CONVERSATION_HANDLERS)) throw invalid("data.handler inválido");
  if (!isOneOf(data.by, ["api", "panel", "customer"] as const)) throw invalid("data.by inválido");
  if (!isOneOf(data.status, ["open", "closed"] as const)) throw invalid("data.status inválido");
  if (data.assignee !== null && !isObject(data.assignee)) throw invalid("data.assignee deve ser um objeto ou null");
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
  checkReceivedMembers(data);
}

/**
 * The members of payload version 2, each only when present (a version-1 body has none): their documented fields'
 * types, never their unknown keys (a later release may add some).
 */
function checkReceivedMembers(data: Json): void {
  const member = (key: string, check: (value: Json, path: string) => void): void => {
    const value = data[key];
    if (value === undefined || value === null) return;
    if (!isObject(value)) throw invalid(`data.${key} deve ser um objeto ou null`);
    check(value, `data.${key}.`);
  };
  member("interactive", (value, path) => {
    expectString(value, "type", path);
    expectString(value, "id", path);
    for (const key of ["title", "description"]) expectNullableString(value, key, path);
  });
  member("button", (value, path) => {
    for (const key of ["payload", "text"]) expectNullableString(value, key, path);
  });
  member("location", (value, path) => {
    for (const key of ["latitude", "longitude"])
      if (typeof value[key] !== "number") throw invalid(`${path}${key} deve ser um número`);
    for (const key of ["name", "address", "url"]) expectNullableString(value, key, path);
  });
  member("reaction", (value, path) => {
    expectString(value, "message_id", path);
    expectNullableString(value, "emoji", path);
  });
  member("referral", () => undefined);
  const contacts = data.contacts;
  if (contacts !== undefined && contacts !== null && (!Array.isArray(contacts) || !contacts.every(isObject)))
    throw invalid("data.contacts deve ser uma lista de objetos ou null");
  for (const key of ["forwarded", "frequently_forwarded"])
    if (data[key] !== undefined && typeof data[key] !== "boolean") throw invalid(`data.${key} deve ser true ou false`);
  expectOptionalNullableString(data, "media_sha256", "data.");
  const voice = data.media_voice;
  if (voice !== undefined && voice !== null && typeof voice !== "boolean")
    throw invalid("data.media_voice deve ser true, false ou null");
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
