import type { Router } from "express";
import {
  PublicSendIn,
  SendHeaders,
  SendRequestHeaders,
  SendResponseHeaders,
  SendResultOut,
  codeList,
  errorExamples,
  errorResponse,
  errorSchema,
  internalError,
  jsonRequestBody,
  payloadTooLarge,
  tooManyRequests,
  unauthorized,
  validationRef,
  type ExampleName,
  type PublicOperation,
  parseRequest,
} from "@gw/contracts";
import { sendMessage, type SendDeps } from "@gw/core";
import type { ErrorCode } from "@gw/errors";
import { authOf } from "../../http/auth.ts";
import { sendRaw } from "../../http/respond.ts";
import { jsonBody } from "../../http/json-body.ts";
import type { ApiMetrics } from "../../metrics.ts";

export interface SendRouteDeps {
  send: SendDeps;
  metrics: Pick<ApiMetrics, "sends">;
}

/** POST /public/v1/messages (spec 4.1). */
export function register(router: Router, deps: SendRouteDeps): void {
  router.post("/messages", jsonBody, async (req, res) => {
    const auth = authOf(req);
    const headers = parseRequest(SendHeaders, "header", { "idempotency-key": req.header("idempotency-key") });
    const idempotencyKey = headers["idempotency-key"];
    const input = parseRequest(PublicSendIn, "body", req.body);
    try {
      const result = await sendMessage(deps.send, {
        accountId: auth.accountId,
        actor: `api_key:${auth.keyId}`,
        requestId: req.requestId,
        idempotencyKey,
        message: input,
      });
      if (result.replayed) res.setHeader("Idempotent-Replayed", "true");
      deps.metrics.sends.inc({ outcome: result.outcome });
      sendRaw(res, result.status, result.body);
    } catch (error) {
      deps.metrics.sends.inc({ outcome: (error as { code?: string }).code ?? "error" });
      throw error;
    }
  });
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
  "variable_too_long",
  "variable_bad_format",
  "invalid_pix_order",
  "template_required_header_media",
  "template_header_mismatch",
  "template_format_unsupported",
  "invalid_otp",
  "provider_rejected",
];

/** Names of the request examples, in the order of the schema's `.meta({ examples })`. */
const EXAMPLE_NAMES: readonly ExampleName[] = [
  { name: "text", summary: "Free text (the contact wrote in the last 24 hours)" },
  { name: "template", summary: "Approved template: header text and body variables" },
  { name: "pix", summary: "Pix charge: order-details template with pix_order" },
];

export const operations: readonly PublicOperation[] = [
  {
    method: "post",
    path: "/messages",
    operationId: "sendMessage",
    summary: "Send a message (text or template)",
    description:
      "Free text needs the contact's 24-hour window open (`outside_24h_window` otherwise: send an approved template). " +
      "With `Idempotency-Key` the key is reserved before the provider is contacted; repeat a call after a connection error or a 5xx with the SAME key and the same body.",
    request: { headers: SendRequestHeaders, body: jsonRequestBody(PublicSendIn, EXAMPLE_NAMES) },
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
      401: unauthorized,
      409: errorResponse(
        "Idempotency-Key in use: still in progress (wait a few seconds and repeat with the same key), or used with another body.",
        ["idempotency_in_flight", "idempotency_conflict", "idempotency_legacy_unverified"],
      ),
      413: payloadTooLarge,
      422: {
        description: `The provider (or the service's own pre-check) refused the send — error envelope, codes: ${codeList(REFUSED_422)}; or the body or the Idempotency-Key header is invalid — \`HTTPValidationError\`.`,
        content: {
          "application/json": {
            schema: { anyOf: [errorSchema(REFUSED_422), validationRef] },
            examples: errorExamples(["outside_24h_window", "template_params_mismatch"]),
          },
        },
      },
      429: tooManyRequests(["api_rate_limited", "rate_limited"]),
      500: internalError,
      503: errorResponse(
        "Template lookup unavailable, provider unavailable, or a send the provider did not confirm (never resent with that key); repeat with the same Idempotency-Key.",
        ["templates_unavailable", "send_unconfirmed", "provider_unavailable"],
      ),
    },
  },
];
