import {
  PublicSendIn,
  SendConflictHeaders,
  SendRequestHeaders,
  SendResponseHeaders,
  SendResultOut,
  codeList,
  errorResponse,
  payloadTooLarge,
  tooManyRequests,
  refusalOrValidation,
  selectSendKind,
  type ExampleName,
  type InteractiveIn,
  type MediaIn,
} from "@gw/contracts";
import { parseRecipient } from "@gw/core/contacts";
import {
  sendMessage,
  type Interactive,
  type InteractiveHeader,
  type MessageContent,
  type SendInput,
  type AcceptedMessage,
} from "@gw/core/messages";
import type { TemplateParameters } from "@gw/core/templates";
import { ApiError, type ErrorCode } from "@gw/errors";
import { defineRoute } from "../define-route.ts";
import { answerSend } from "../send-answer.ts";

/**
 * The request as the send service takes it: its refusals of an incomplete request come first (spec 7, 400), the
 * recipient is read (a phone normalized to digits, or a BSUID as given), and the Idempotency-Key's fingerprint is
 * taken over the body with the recipient's contact (the same body naming the same person otherwise is the same
 * message).
 */
function sendInputOf(
  body: PublicSendIn,
  idempotencyKey: string | undefined,
): Omit<SendInput, "accountId" | "actor" | "requestId"> {
  const template = body.template ? body.template : null;
  if (body.pix_order && template === null) throw new ApiError("pix_needs_template");
  if (!body.text && template === null && !body.interactive && !body.media && !body.reaction && !body.location)
    throw new ApiError("empty_message");
  const recipient = parseRecipient(body.to);
  if (recipient.kind === "invalid")
    throw new ApiError("invalid_recipient", { message: `O número ${body.to} não é válido para envio.` });
  return {
    to: recipient.identifier,
    phoneNumberId: body.phone_number_id,
    // A template wins over a text given with it, and either over the other kinds (selectSendKind removed those).
    content:
      template === null
        ? contentOf(body)
        : { kind: "template", name: template, language: body.language, parameters: templateParametersOf(body) },
    replyToMessageId: body.reply_to_message_id,
    clientRef: body.client_ref,
    idempotency:
      idempotencyKey === undefined
        ? undefined
        : // Over the body with the recipient's contact: the same message to the same person by another identifier.
          { key: idempotencyKey, fingerprint: { request: body, recipientField: "to" } },
  };
}

/** A free-form send: the text, or the one new member the body carries (the schema allows one). */
function contentOf(body: PublicSendIn): MessageContent {
  if (body.text) return { kind: "text", body: body.text };
  if (body.interactive) return { kind: "interactive", interactive: interactiveOf(body.interactive) };
  if (body.media) return { kind: "media", media: mediaOf(body.media) };
  if (body.reaction)
    return { kind: "reaction", reaction: { messageId: body.reaction.message_id, emoji: body.reaction.emoji } };
  if (body.location) {
    const { latitude, longitude, name, address } = body.location;
    return { kind: "location", location: { latitude, longitude, name: name ?? null, address: address ?? null } };
  }
  // sendInputOf refused a body without any content (empty_message).
  throw new ApiError("empty_message");
}

function headerOf(header: Extract<InteractiveIn, { type: "button" }>["header"]): InteractiveHeader | null {
  if (!header) return null;
  if (header.type === "text") return { type: "text", text: header.text };
  return {
    type: header.type,
    mediaId: header.media_id ?? null,
    link: header.link ?? null,
    filename: header.filename ?? null,
  };
}

function interactiveOf(interactive: InteractiveIn): Interactive {
  switch (interactive.type) {
    case "button":
      return {
        type: "button",
        header: headerOf(interactive.header),
        body: interactive.body,
        footer: interactive.footer ?? null,
        buttons: interactive.buttons.map((b) => ({ id: b.id, title: b.title })),
      };
    case "list":
      return {
        type: "list",
        // The schema refuses a list header that is not a text.
        header: interactive.header?.type === "text" ? { type: "text", text: interactive.header.text } : null,
        body: interactive.body,
        footer: interactive.footer ?? null,
        button: interactive.button,
        sections: interactive.sections.map((section) => ({
          title: section.title,
          rows: section.rows.map((row) => ({ id: row.id, title: row.title, description: row.description ?? null })),
        })),
      };
    case "cta_url":
      return {
        type: "cta_url",
        header: headerOf(interactive.header),
        body: interactive.body,
        footer: interactive.footer ?? null,
        displayText: interactive.display_text,
        url: interactive.url,
      };
    case "location_request":
      return { type: "location_request", body: interactive.body };
    case "request_contact_info":
      return { type: "request_contact_info", body: interactive.body };
  }
}

function mediaOf(media: MediaIn) {
  return {
    type: media.type,
    mediaId: media.media_id ?? null,
    link: media.link ?? null,
    caption: media.caption ?? null,
    filename: media.filename ?? null,
    voice: media.voice,
  };
}

function templateParametersOf(body: PublicSendIn): TemplateParameters {
  return {
    variables: body.variables,
    variable_names: body.variable_names,
    header_media: body.header_media,
    header_text: body.header_text,
    button_url_param: body.button_url_param,
    button_url_index: body.button_url_index,
    coupon_code: body.coupon_code,
    coupon_index: body.coupon_index,
    otp_code: body.otp_code,
    otp_index: body.otp_index,
    pix_order: body.pix_order,
  };
}

/** The 200 body of a sent message (a replay renders the same from the key's stored outcome). */
function sentBody(message: AcceptedMessage): string {
  const data = {
    message_id: message.messageId,
    to: message.to,
    status: "sent",
    // An order_status send (issue 28) is an interactive message; its key's fingerprint never matches a POST /messages.
    type: message.type === "order_status" ? "interactive" : message.type,
    phone_number_id: message.phoneNumberId,
    client_ref: message.clientRef,
  } satisfies SendResultOut["data"];
  return JSON.stringify({ success: true, data } satisfies SendResultOut);
}

const REFUSED_422: readonly ErrorCode[] = [
  "outside_24h_window",
  "recipient_unreachable",
  "recipient_opted_out",
  "template_params_mismatch",
  "template_not_found",
  "template_paused",
  "invalid_template",
  "marketing_experiment",
  "delivery_limited",
  "payment_issue",
  "account_restricted",
  "account_disabled",
  "variable_too_long",
  "variable_bad_format",
  "invalid_pix_order",
  "template_required_header_media",
  "template_header_mismatch",
  "template_format_unsupported",
  "invalid_otp",
  "provider_rejected",
  // Issue 27: free-form kinds, checked before Meta.
  "media_unavailable",
  "media_type_mismatch",
  "reaction_target_not_found",
  "message_too_old",
];

/** Names of the request examples, in the order of the schema's `.meta({ examples })`. */
const EXAMPLE_NAMES: readonly ExampleName[] = [
  { name: "text", summary: "Free text (the contact wrote in the last 24 hours)" },
  { name: "template", summary: "Approved template: header text and body variables" },
  { name: "pix", summary: "Pix charge: order-details template with pix_order" },
  {
    name: "list",
    summary: "A list of options (a menu); the tap arrives as message.received, with the row's id on payload version 2",
  },
  { name: "buttons", summary: "Up to three reply buttons; the tap arrives with the button's id on payload version 2" },
  { name: "document", summary: "A PDF by the media_id that POST /public/v1/media answered, with its file name" },
];

/** POST /public/v1/messages (spec 4.1). */
export const { register, operations } = defineRoute({
  method: "post",
  path: "/messages",
  operationId: "sendMessage",
  scope: "messages:send",
  summary: "Send a message (text, template, interactive, media, reaction or location)",
  description:
    "Free text needs the contact's 24-hour window open (`outside_24h_window` otherwise: send an approved template). " +
    'So do the other free-form kinds, one per request and read only without `text` and `template`: `interactive` (reply buttons, a list, a URL button, a location request), `media` (by `media_id` of an upload of this account on this number, or by public `link`), `reaction` (to a message the contact sent, within 30 days; `emoji: ""` removes it) and `location`. Every WhatsApp limit is checked before the provider (422 `HTTPValidationError` naming the field; nothing is sent). ' +
    "With `Idempotency-Key` the key is reserved before the provider is contacted; repeat a call after a connection error or a 5xx with the SAME key and the same body.",
  request: {
    headers: SendRequestHeaders,
    body: { schema: PublicSendIn, examples: EXAMPLE_NAMES, prepare: selectSendKind },
  },
  responses: {
    200: {
      description: "Sent; `data.message_id` is the id later carried by `message.status`.",
      headers: SendResponseHeaders,
      content: { "application/json": { schema: SendResultOut } },
    },
    400: errorResponse(
      "Incomplete request, invalid recipient, business number not in the account, or a body that cannot be read (Content-Encoding, cut short).",
      ["invalid_recipient", "empty_message", "pix_needs_template", "no_connected_number", "bad_request"],
    ),
    409: errorResponse(
      "Idempotency-Key in use: still in progress (honour `Retry-After` and repeat with the same key), or used with another body; or a `pix_order` whose `reference_id` an order of this account already has (nothing sent).",
      ["idempotency_in_flight", "idempotency_conflict", "idempotency_legacy_unverified", "order_reference_taken"],
      SendConflictHeaders,
    ),
    413: payloadTooLarge,
    422: refusalOrValidation(
      `The provider (or the service's own pre-check) refused the send — error envelope, codes: ${codeList(REFUSED_422)}; or the body or the Idempotency-Key header is invalid — \`HTTPValidationError\`.`,
      REFUSED_422,
      ["outside_24h_window", "template_params_mismatch"],
    ),
    429: tooManyRequests(["api_rate_limited", "rate_limited"]),
    503: errorResponse(
      "Template lookup unavailable, provider unavailable, or a send the provider did not confirm (never resent with that key); repeat with the same Idempotency-Key.",
      ["templates_unavailable", "send_unconfirmed", "provider_unavailable"],
    ),
  },
  handler: ({ accountId, actor, headers, body, req, res }, deps) =>
    answerSend(
      deps,
      res,
      () =>
        sendMessage(deps.send, {
          ...sendInputOf(body, headers["idempotency-key"]),
          accountId,
          actor,
          requestId: req.requestId,
        }),
      sentBody,
    ),
});
