import type { Router } from "express";
import {
  ValidateIn,
  ValidateOut,
  internalError,
  jsonRequestBody,
  jsonResponse,
  payloadTooLarge,
  requestValidation,
  tooManyRequests,
  unauthorized,
  unreadableRequest,
  type PublicOperation,
  parseRequest,
} from "@gw/contracts";
import { validatePhone } from "@gw/core";
import { jsonBody } from "../../http/json-body.ts";

/** POST /public/v1/validate (spec 4.2). */
export function register(router: Router): void {
  router.post("/validate", jsonBody, (req, res) => {
    const input = parseRequest(ValidateIn, "body", req.body);
    res.json({ success: true, data: validatePhone(input) });
  });
}

export const operations: readonly PublicOperation[] = [
  {
    method: "post",
    path: "/validate",
    operationId: "validatePhone",
    summary: "Validate and normalize a phone format",
    description: "`valid=true` does not confirm registration on the channel, authorization to send or delivery.",
    request: {
      body: jsonRequestBody(ValidateIn, [{ name: "br_mobile", summary: "Brazilian mobile number in national format" }]),
    },
    responses: {
      200: jsonResponse("`to` normalized (digits only) and the `valid` flag.", ValidateOut),
      400: unreadableRequest("The body (Content-Encoding, cut short)"),
      401: unauthorized,
      413: payloadTooLarge,
      422: requestValidation("body"),
      429: tooManyRequests(["api_rate_limited"]),
      500: internalError,
    },
  },
];
