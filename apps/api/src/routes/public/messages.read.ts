import type { Router } from "express";
import {
  ReadIn,
  ReadOut,
  ReadPath,
  codeList,
  errorExamples,
  errorResponse,
  errorSchema,
  internalError,
  jsonRequestBody,
  jsonResponse,
  parseRequest,
  payloadTooLarge,
  tooManyRequests,
  unauthorized,
  unreadableRequest,
  validationRef,
  type ExampleName,
  type PublicOperation,
} from "@gw/contracts";
import { markInboundMessageRead, type ReadReceiptDeps } from "@gw/core";
import type { ErrorCode } from "@gw/errors";
import { apiActor, authOf } from "../../http/auth.ts";
import { jsonBody } from "../../http/json-body.ts";

/** POST /public/v1/messages/{message_id}/read (issue 18): a read receipt, with the typing indicator when asked. */
export function register(router: Router, deps: { readReceipts: ReadReceiptDeps }): void {
  router.post("/messages/:message_id/read", jsonBody, async (req, res) => {
    const auth = authOf(req);
    const path = parseRequest(ReadPath, "path", req.params);
    // No body at all is the same as `{}`: a read receipt without the typing indicator.
    const body = parseRequest(ReadIn, "body", req.body === undefined ? {} : req.body);
    const outcome = await markInboundMessageRead(deps.readReceipts, {
      accountId: auth.accountId,
      messageId: path.message_id,
      typing: body.typing,
      actor: apiActor(req),
    });
    if (outcome.kind === "refused") throw outcome.error;
    const { receipt } = outcome;
    const data = {
      message_id: receipt.messageId,
      phone_number_id: receipt.phoneNumberId,
      read: true,
      typing: receipt.typing,
      read_at: receipt.readAt.toISOString(),
    } satisfies ReadOut["data"];
    res.json({ success: true, data } satisfies ReadOut);
  });
}

const REFUSED_422: readonly ErrorCode[] = [
  "message_too_old",
  "account_restricted",
  "payment_issue",
  "provider_rejected",
];

const EXAMPLE_NAMES: readonly ExampleName[] = [
  { name: "typing", summary: "Mark read and show the typing indicator (a reply is coming)" },
  { name: "read", summary: "Mark read only (the same as no body)" },
];

export const operations: readonly PublicOperation[] = [
  {
    method: "post",
    path: "/messages/{message_id}/read",
    operationId: "markMessageRead",
    summary: "Mark a received message read (and show typing)",
    description:
      "Marks a contact's message read at Meta (the contact sees the blue ticks), through the business number that received it; Meta also marks the earlier messages of the conversation read. " +
      "With `typing: true` the contact also sees a typing indicator until the reply arrives or for 25 s: show it only when a reply is coming. " +
      "One typing indicator per conversation at a time: another one for the same (or an older) message within 25 s is `rate_limited` (nothing is sent; a newer message of the contact may have its own at once). " +
      "No message is sent: no new `message_id`, nothing is billed, no `message.status` webhook follows. Messages received more than 30 days ago are `message_too_old`. " +
      "Marking a message already read again (without typing) answers at once with its `read_at`. Safe to repeat. Audited as `api.inbound_message.marked_read`.",
    request: {
      params: ReadPath,
      body: { ...jsonRequestBody(ReadIn, EXAMPLE_NAMES), required: false },
    },
    responses: {
      200: jsonResponse("Marked read (and the typing indicator shown when asked).", ReadOut),
      400: unreadableRequest("The path (an invalid %-escape) or the body"),
      401: unauthorized,
      404: errorResponse(
        "No message received by this account has this id (another account's message included), or the number that received it is no longer the account's.",
        ["not_found"],
      ),
      413: payloadTooLarge,
      422: {
        description: `Refused before Meta (a message over 30 days old) or by Meta — error envelope, codes: ${codeList(REFUSED_422)}; or an invalid path or body — \`HTTPValidationError\`.`,
        content: {
          "application/json": {
            schema: { anyOf: [errorSchema(REFUSED_422), validationRef] },
            examples: errorExamples(["message_too_old", "provider_rejected"]),
          },
        },
      },
      429: tooManyRequests(["api_rate_limited", "rate_limited"]),
      500: internalError,
      503: errorResponse(
        "The provider could not be reached or did not confirm; nothing was recorded, repeat the call.",
        ["provider_unavailable"],
      ),
    },
  },
];
