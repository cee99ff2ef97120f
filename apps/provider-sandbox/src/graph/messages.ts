import { newWamid } from "../ids.ts";
import { charLength, isRecord, nonEmptyString, shown, type JsonRecord } from "../json.ts";
import {
  countRefusal,
  countSend,
  digitsOf,
  logs,
  marketingStopped,
  remember,
  windowOpen,
  withinPairRate,
  withinRate,
  type FaultMode,
  type SandboxState,
  type SentMessage,
} from "../state.ts";
import { startStatusSequence } from "../statuses.ts";
import { MetaError, type GraphResult } from "./errors.ts";
import { validateOrderDetails } from "./order-details.ts";
import { validateTemplateSend } from "./template-send.ts";

const TEXT_MAX = 4096;
const META_TYPES = [
  "audio",
  "contacts",
  "document",
  "image",
  "interactive",
  "location",
  "reaction",
  "sticker",
  "template",
  "text",
  "video",
];

function parseBody(raw: string): JsonRecord {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new MetaError(100, "The request body must be a valid JSON object.");
  }
  if (!isRecord(body)) throw new MetaError(100, "The request body must be a valid JSON object.");
  return body;
}

function checkEnvelope(body: JsonRecord): { to: string; waId: string; type: string } {
  if (body.messaging_product === undefined) throw new MetaError(100, "The parameter messaging_product is required.");
  if (body.messaging_product !== "whatsapp") {
    throw new MetaError(
      100,
      `Param messaging_product must be one of {WHATSAPP} - got "${shown(body.messaging_product)}".`,
    );
  }
  if (body.recipient_type !== undefined && body.recipient_type !== "individual") {
    throw new MetaError(100, `Param recipient_type must be one of {INDIVIDUAL} - got "${shown(body.recipient_type)}".`);
  }
  if (!nonEmptyString(body.to)) throw new MetaError(100, "The parameter to is required.");
  const waId = digitsOf(body.to);
  if (!/^\d{8,15}$/.test(waId)) throw new MetaError(100, `Invalid WhatsApp phone number in parameter to: ${body.to}`);
  // Meta defaults `type` to text.
  const type = body.type === undefined ? "text" : body.type;
  if (typeof type !== "string" || !META_TYPES.includes(type)) {
    throw new MetaError(
      100,
      `Param type must be one of {${META_TYPES.map((t) => t.toUpperCase()).join(", ")}} - got "${shown(type)}".`,
    );
  }
  if (body.context !== undefined && (!isRecord(body.context) || !nonEmptyString(body.context.message_id))) {
    throw new MetaError(100, "The parameter context['message_id'] is required.");
  }
  return { to: body.to, waId, type };
}

function checkText(body: JsonRecord): void {
  const text = body.text;
  if (!isRecord(text) || !nonEmptyString(text.body))
    throw new MetaError(100, "The parameter text['body'] is required.");
  if (charLength(text.body) > TEXT_MAX)
    throw new MetaError(100, `Param text['body'] must be at most ${TEXT_MAX} characters long.`);
  if (text.preview_url !== undefined && typeof text.preview_url !== "boolean") {
    throw new MetaError(100, "Param text['preview_url'] must be a boolean.");
  }
}

function checkInteractive(body: JsonRecord): void {
  const interactive = body.interactive;
  if (!isRecord(interactive) || typeof interactive.type !== "string")
    throw new MetaError(100, "The parameter interactive['type'] is required.");
  if (interactive.type !== "order_details") {
    throw new MetaError(100, `The sandbox does not implement interactive messages of type ${interactive.type}.`);
  }
  if (!isRecord(interactive.body) || !nonEmptyString(interactive.body.text)) {
    throw new MetaError(131008, "order_details: interactive['body']['text'] is required");
  }
  const action = interactive.action;
  if (!isRecord(action) || action.name !== "review_and_pay")
    throw new MetaError(131009, "order_details: action name must be review_and_pay");
  validateOrderDetails(action.parameters, { requireOrder: false });
}

/**
 * POST /{version}/{phone-number-id}/messages. Validates like Meta and, when accepted, records the send and starts
 * its status webhooks. `fault` marks a send whose answer a fault will replace (it still went out).
 */
export function handleSend(
  state: SandboxState,
  phoneNumberId: string,
  raw: string,
  fault: FaultMode | null,
): GraphResult {
  try {
    const body = parseBody(raw);
    const { to, waId, type } = checkEnvelope(body);
    if (!withinRate(state, phoneNumberId)) {
      throw new MetaError(130429, "Cloud API message throughput has been reached.", { errorSubcode: 2494055 });
    }
    if (!withinPairRate(state, phoneNumberId, waId)) {
      throw new MetaError(
        131056,
        "Too many messages sent from the sender phone number to the same recipient phone number in a short period of time.",
      );
    }
    let category = "service";
    if (type === "text") checkText(body);
    else if (type === "interactive") checkInteractive(body);
    else if (type === "template")
      category = validateTemplateSend(state.config.templates, body.template).category.toLowerCase();
    else throw new MetaError(100, `The sandbox does not implement messages of type ${type}.`);

    if (type !== "template" && state.config.enforceWindow && !windowOpen(state, phoneNumberId, waId)) {
      throw new MetaError(
        131047,
        "Message failed to send because more than 24 hours have passed since the customer last replied to this number.",
      );
    }
    if (state.config.unreachable.includes(waId)) throw new MetaError(131026, "Message Undeliverable.");

    const wamid = newWamid(waId);
    const now = state.now();
    const sent: SentMessage = {
      phone_number_id: phoneNumberId,
      wamid,
      to,
      wa_id: waId,
      type,
      body,
      raw,
      at: new Date(now).toISOString(),
      at_ms: now,
      fault,
    };
    remember(state.sent, sent, state.config.historyLimit);
    countSend(state, phoneNumberId, waId);
    // Meta takes a marketing template to a contact who stopped marketing messages, then reports it failed (131050).
    const stopped = category === "marketing" && marketingStopped(state, phoneNumberId, waId);
    startStatusSequence(state, { phoneNumberId, wamid, waId, category, ...(stopped ? { failure: 131050 } : {}) });
    if (logs(state, "info")) state.logger.info("sandbox send accepted", { phoneNumberId, wamid, type });
    // Template sends carry Meta's pacing field.
    const message: Record<string, string> =
      type === "template" ? { id: wamid, message_status: "accepted" } : { id: wamid };
    return {
      status: 200,
      body: { messaging_product: "whatsapp", contacts: [{ input: to, wa_id: waId }], messages: [message] },
    };
  } catch (error) {
    if (!(error instanceof MetaError)) throw error;
    countRefusal(state, phoneNumberId, error.code);
    if (logs(state, "info"))
      state.logger.info("sandbox send refused", { phoneNumberId, code: error.code, details: error.details });
    return error.toResult();
  }
}
