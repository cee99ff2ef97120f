import {
  ValidateIn,
  ValidateOut,
  jsonResponse,
  payloadTooLarge,
  requestValidation,
  unreadableRequest,
} from "@gw/contracts";
import { validatePhone } from "@gw/core/phones";
import { defineRoute } from "../define-route.ts";

/** POST /public/v1/validate (spec 4.2). */
export const { register, operations } = defineRoute({
  method: "post",
  path: "/validate",
  operationId: "validatePhone",
  scope: "messages:read",
  summary: "Validate and normalize a phone format",
  description: "`valid=true` does not confirm registration on the channel, authorization to send or delivery.",
  request: {
    body: {
      schema: ValidateIn,
      examples: [{ name: "br_mobile", summary: "Brazilian mobile number in national format" }],
    },
  },
  responses: {
    200: jsonResponse("`to` normalized (digits only) and the `valid` flag.", ValidateOut),
    400: unreadableRequest("The body (Content-Encoding, cut short)"),
    413: payloadTooLarge,
    422: requestValidation("body"),
  },
  handler: ({ body }) => validatePhone(body),
});
