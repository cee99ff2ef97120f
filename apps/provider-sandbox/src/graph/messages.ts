import { implicitTake } from "../conversation-owners.ts";
import { newWamid } from "../ids.ts";
import { charLength, isRecord, nonEmptyString, shown, type JsonRecord } from "../json.ts";
import { checkOrderMessage } from "../orders.ts";
import { pricingOf } from "../pricing.ts";
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
  type SendEndpoint,
  type SentMessage,
  type SandboxUser,
} from "../state.ts";
import { startStatusSequence } from "../statuses.ts";
import type { SandboxTemplate } from "../types.ts";
import {
  BSUID_PATTERN,
  findByParentUserId,
  findByUserId,
  PARENT_BSUID_PATTERN,
  portfolioOf,
  portfolioSettings,
  recordPhoneExchange,
  refOf,
  userForPhone,
  userIdOf,
} from "../users.ts";
import type { FailureCode } from "../webhooks.ts";
import { checkMessagingProduct } from "./envelope.ts";
import { MetaError, type GraphResult } from "./errors.ts";
import { checkInteractiveMessage } from "./interactive.ts";
import { checkMarketingMessage, marketingPricingCategory, requireMarketingTemplate } from "./marketing-messages.ts";
import { markMessageRead } from "./mark-read.ts";
import { checkMediaSend, MEDIA_SEND_TYPES } from "./media-send.ts";
import { validateOrderDetails } from "./order-details.ts";
import { checkLocation, checkReaction } from "./reaction-location.ts";
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

export function parseBody(raw: string): JsonRecord {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new MetaError(100, "The request body must be a valid JSON object.");
  }
  if (!isRecord(body)) throw new MetaError(100, "The request body must be a valid JSON object.");
  return body;
}

/** Who a send is addressed to (meta-2026 §1.6): `to` (a phone) wins over `recipient` (a BSUID or parent BSUID). */
type Addressee = { kind: "phone"; to: string; waId: string } | { kind: "user_id"; recipient: string };

export function checkAddressee(body: JsonRecord): Addressee {
  if (nonEmptyString(body.to)) {
    const waId = digitsOf(body.to);
    if (!/^\d{8,15}$/.test(waId)) throw new MetaError(100, `Invalid WhatsApp phone number in parameter to: ${body.to}`);
    return { kind: "phone", to: body.to, waId };
  }
  // Meta's answer when neither is given names `to` (its MM API example).
  if (body.recipient === undefined) throw new MetaError(100, "The parameter to is required.");
  const recipient = body.recipient;
  if (typeof recipient !== "string" || !(BSUID_PATTERN.test(recipient) || PARENT_BSUID_PATTERN.test(recipient))) {
    // Meta's wording for a malformed BSUID is not published; the code (100, invalid parameter) is the usual one.
    throw new MetaError(100, `Invalid Business-scoped User ID (BSUID) in parameter recipient: ${shown(recipient)}`);
  }
  return { kind: "user_id", recipient };
}

function checkEnvelope(body: JsonRecord): { addressee: Addressee; type: string } {
  checkMessagingProduct(body);
  if (body.recipient_type !== undefined && body.recipient_type !== "individual") {
    throw new MetaError(100, `Param recipient_type must be one of {INDIVIDUAL} - got "${shown(body.recipient_type)}".`);
  }
  const addressee = checkAddressee(body);
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
  // Meta documents at most 512 characters; its answer beyond that is not published (100, invalid parameter, assumed).
  const callback = body.biz_opaque_callback_data;
  if (callback !== undefined && (typeof callback !== "string" || charLength(callback) > 512)) {
    throw new MetaError(100, "Param biz_opaque_callback_data must be a string of at most 512 characters.");
  }
  return { addressee, type };
}

/**
 * The user a send reaches. A BSUID must be current and of this number's portfolio; a parent BSUID is taken only
 * where the portfolio has parent BSUIDs enabled. Meta documents no code for a BSUID of another portfolio (meta-2026
 * §1.9, unverified): the sandbox answers 131009 (parameter value is not valid).
 */
export function recipientOf(state: SandboxState, phoneNumberId: string, addressee: Addressee): SandboxUser {
  if (addressee.kind === "phone") return userForPhone(state, addressee.waId);
  const portfolio = portfolioOf(state, phoneNumberId);
  const user = PARENT_BSUID_PATTERN.test(addressee.recipient)
    ? portfolioSettings(state, portfolio).parentUserIds
      ? findByParentUserId(state, addressee.recipient)
      : undefined
    : findByUserId(state, addressee.recipient, portfolio);
  if (!user) {
    throw new MetaError(
      131009,
      `recipient: ${addressee.recipient} is not a Business-scoped User ID (BSUID) of this business portfolio.`,
    );
  }
  return user;
}

/** One-tap, zero-tap and copy-code buttons (stored by Meta as URL buttons with `otp_type`) need the phone. */
function needsPhoneNumber(template: SandboxTemplate): boolean {
  if (template.category !== "AUTHENTICATION") return false;
  const buttons = template.components.find((c) => c.type === "BUTTONS")?.buttons ?? [];
  return buttons.some((b) => b.type === "COPY_CODE" || (b.type === "URL" && /[?&]otp_type=/i.test(b.url ?? "")));
}

/** Whether an `unreachable` / `failAfterSend` list names this recipient, by phone or by BSUID. */
function listed(list: string[], names: (string | undefined)[]): boolean {
  return names.some((name) => name !== undefined && list.includes(name));
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

/** What the send's later statuses say beyond the usual sequence (a link Meta cannot fetch, a reaction). */
interface SendOutcome {
  /** A `failed` status after the send (and `sent` before it, except for a reaction). */
  failure?: FailureCode;
  /** A reaction: only `sent` follows (meta-messages.md §3.1). */
  onlySent?: boolean;
}

function checkInteractive(state: SandboxState, phoneNumberId: string, body: JsonRecord): SendOutcome {
  const interactive = body.interactive;
  if (!isRecord(interactive) || typeof interactive.type !== "string")
    throw new MetaError(100, "The parameter interactive['type'] is required.");
  if (interactive.type !== "order_details") {
    const { fails } = checkInteractiveMessage(state, phoneNumberId, interactive);
    return fails ? { failure: 131053 } : {};
  }
  if (!isRecord(interactive.body) || !nonEmptyString(interactive.body.text)) {
    throw new MetaError(131008, "order_details: interactive['body']['text'] is required");
  }
  const action = interactive.action;
  if (!isRecord(action) || action.name !== "review_and_pay")
    throw new MetaError(131009, "order_details: action name must be review_and_pay");
  validateOrderDetails(action.parameters, { requireOrder: false });
  return {};
}

/** The kinds beyond text, templates and interactive (issue 27): media, reaction, location. */
function checkOtherKind(
  state: SandboxState,
  phoneNumberId: string,
  user: SandboxUser,
  type: string,
  body: JsonRecord,
): SendOutcome {
  const mediaType = MEDIA_SEND_TYPES.find((t) => t === type);
  if (mediaType) return checkMediaSend(state, phoneNumberId, mediaType, body).fails ? { failure: 131053 } : {};
  if (type === "reaction") {
    const { fails } = checkReaction(state, phoneNumberId, user, body);
    return fails ? { failure: 131009 } : { onlySent: true };
  }
  if (type === "location") {
    checkLocation(body);
    return {};
  }
  throw new MetaError(100, `The sandbox does not implement messages of type ${type}.`);
}

/**
 * POST /{version}/{phone-number-id}/messages, and /marketing_messages (`endpoint`): the Marketing Messages API takes
 * the same body and answers the same way, but only MARKETING templates, priced `marketing_lite` unless the WABA is
 * not onboarded (`marketing-messages.ts`). Validates like Meta and, when accepted, records the send and starts its
 * status webhooks. `fault` marks a send whose answer a fault will replace (it still went out).
 */
export function handleSend(
  state: SandboxState,
  phoneNumberId: string,
  raw: string,
  fault: FaultMode | null,
  endpoint: SendEndpoint = "messages",
): GraphResult {
  let body: JsonRecord;
  try {
    body = parseBody(raw);
  } catch (error) {
    return refused(state, phoneNumberId, error);
  }
  const marketingApi = endpoint === "marketing_messages";
  // Mark-as-read and typing indicators share the /messages endpoint: a `status` instead of a message.
  if (body.status !== undefined && !marketingApi) return markMessageRead(state, phoneNumberId, body);
  try {
    const productPolicy = marketingApi ? checkMarketingMessage(body) : undefined;
    const { addressee, type } = checkEnvelope(body);
    const user = recipientOf(state, phoneNumberId, addressee);
    if (!withinRate(state, phoneNumberId)) {
      throw new MetaError(130429, "Cloud API message throughput has been reached.", { errorSubcode: 2494055 });
    }
    if (!withinPairRate(state, phoneNumberId, user.key)) {
      throw new MetaError(
        131056,
        "Too many messages sent from the sender phone number to the same recipient phone number in a short period of time.",
      );
    }
    // The pricing category: `service` for non-template messages, else the template's (or the MM API's).
    let category = "service";
    let marketingTemplate = false;
    let outcome: SendOutcome = {};
    if (type === "text") checkText(body);
    else if (type === "interactive") outcome = checkInteractive(state, phoneNumberId, body);
    else if (type === "template") {
      const template = validateTemplateSend(
        state.config.templates,
        body.template,
        marketingApi ? requireMarketingTemplate : undefined,
      );
      if (addressee.kind === "user_id" && needsPhoneNumber(template)) {
        throw new MetaError(
          131062,
          "Authentication templates with one-tap, zero-tap or copy-code buttons must be sent to the recipient's phone number.",
        );
      }
      marketingTemplate = template.category === "MARKETING";
      category = productPolicy ? marketingPricingCategory(state, productPolicy) : template.category.toLowerCase();
    } else outcome = checkOtherKind(state, phoneNumberId, user, type, body);
    checkOrderMessage(state, phoneNumberId, user, body);

    const inWindow = windowOpen(state, phoneNumberId, user.key);
    if (type !== "template" && state.config.enforceWindow && !inWindow) {
      throw new MetaError(
        131047,
        "Message failed to send because more than 24 hours have passed since the customer last replied to this number.",
      );
    }
    const userId = userIdOf(user, portfolioOf(state, phoneNumberId));
    const toPhone = addressee.kind === "phone" ? addressee.waId : undefined;
    const names = [toPhone, user.phone, userId, addressee.kind === "user_id" ? addressee.recipient : undefined];
    if (listed(state.config.unreachable, names)) throw new MetaError(131026, "Message Undeliverable.");

    const wamid = newWamid(addressee.kind === "phone" ? addressee.waId : addressee.recipient);
    const now = state.now();
    const sent: SentMessage = {
      phone_number_id: phoneNumberId,
      wamid,
      endpoint,
      to: addressee.kind === "phone" ? addressee.to : null,
      wa_id: toPhone ?? null,
      recipient: addressee.kind === "user_id" ? addressee.recipient : null,
      user_id: userId,
      type,
      body,
      raw,
      at: new Date(now).toISOString(),
      at_ms: now,
      fault,
    };
    remember(state.sent, sent, state.config.historyLimit);
    countSend(state, phoneNumberId, user.key);
    // A send to the phone lets this number see it for 30 days (and puts the user in the contact book).
    if (addressee.kind === "phone") recordPhoneExchange(state, user, phoneNumberId, now);
    // The escalation partner replying in a thread another app owns takes it (Conversation Routing); a template does
    // not, and the Marketing Messages API sends templates only.
    if (type !== "template") implicitTake(state, phoneNumberId, user);
    // Meta takes a marketing template to a contact who stopped marketing messages, then reports it failed (131050),
    // through either edge.
    const stopped = marketingTemplate && marketingStopped(state, phoneNumberId, user.key);
    startStatusSequence(state, {
      phoneNumberId,
      wamid,
      user: refOf(user),
      toPhone,
      pricing: pricingOf(state, { category, windowOpen: inWindow, country: user.country }),
      failAfterSend: listed(state.config.failAfterSend, names),
      ...(stopped ? { failure: 131050 } : outcome.failure ? { failure: outcome.failure } : {}),
      ...(outcome.onlySent ? { onlySent: true } : {}),
      ...(typeof body.biz_opaque_callback_data === "string" ? { callbackData: body.biz_opaque_callback_data } : {}),
    });
    if (logs(state, "info")) state.logger.info("sandbox send accepted", { phoneNumberId, wamid, type, endpoint });
    // Template sends carry Meta's pacing field.
    const message: Record<string, string> =
      type === "template" ? { id: wamid, message_status: "accepted" } : { id: wamid };
    // A BSUID send is answered with the BSUID (`user_id`), never the phone (meta-2026 §1.6).
    const contact =
      addressee.kind === "phone"
        ? { input: addressee.to, wa_id: addressee.waId }
        : { input: addressee.recipient, user_id: addressee.recipient };
    return { status: 200, body: { messaging_product: "whatsapp", contacts: [contact], messages: [message] } };
  } catch (error) {
    return refused(state, phoneNumberId, error);
  }
}

function refused(state: SandboxState, phoneNumberId: string, error: unknown): GraphResult {
  if (!(error instanceof MetaError)) throw error;
  countRefusal(state, phoneNumberId, error.code);
  if (logs(state, "info"))
    state.logger.info("sandbox send refused", { phoneNumberId, code: error.code, details: error.details });
  return error.toResult();
}
