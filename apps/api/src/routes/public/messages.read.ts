import {
  ReadIn,
  ReadOut,
  ReadPath,
  codeList,
  errorResponse,
  jsonResponse,
  payloadTooLarge,
  tooManyRequests,
  unreadableRequest,
  refusalOrValidation,
  type ExampleName,
} from "@gw/contracts";
import { markInboundMessageRead } from "@gw/core/conversations";
import type { ErrorCode } from "@gw/errors";
import { defineRoute } from "../define-route.ts";

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

/** POST /public/v1/messages/{message_id}/read (issue 18): a read receipt, with the typing indicator when asked. */
export const { register, operations } = defineRoute({
  method: "post",
  path: "/messages/{message_id}/read",
  operationId: "markMessageRead",
  scope: "messages:send",
  summary: "Mark a received message read (and show typing)",
  description:
    "Marks a contact's message read at Meta (the contact sees the blue ticks), through the business number that received it; Meta also marks the earlier messages of the conversation read. " +
    "With `typing: true` the contact also sees a typing indicator until the reply arrives or for 25 s: show it only when a reply is coming. " +
    "One typing indicator per conversation at a time: another one for the same (or an older) message within 25 s is `rate_limited` (nothing is sent; a newer message of the contact may have its own at once). " +
    "No message is sent: no new `message_id`, nothing is billed, no `message.status` webhook follows. Messages received more than 30 days ago are `message_too_old`. " +
    "Marking a message already read again (without typing) answers at once with its `read_at`. Safe to repeat. Audited as `api.inbound_message.marked_read`.",
  request: {
    params: ReadPath,
    // No body at all is the same as `{}`: a read receipt without the typing indicator.
    body: { schema: ReadIn, examples: EXAMPLE_NAMES, required: false, whenAbsent: {} },
  },
  responses: {
    200: jsonResponse("Marked read (and the typing indicator shown when asked).", ReadOut),
    400: unreadableRequest("The path (an invalid %-escape) or the body"),
    404: errorResponse(
      "No message received by this account has this id (another account's message included), or the number that received it is no longer the account's.",
      ["not_found"],
    ),
    413: payloadTooLarge,
    422: refusalOrValidation(
      `Refused before Meta (a message over 30 days old) or by Meta — error envelope, codes: ${codeList(REFUSED_422)}; or an invalid path or body — \`HTTPValidationError\`.`,
      REFUSED_422,
      ["message_too_old", "provider_rejected"],
    ),
    429: tooManyRequests(["api_rate_limited", "rate_limited"]),
    503: errorResponse("The provider could not be reached or did not confirm; nothing was recorded, repeat the call.", [
      "provider_unavailable",
    ]),
  },
  async handler({ accountId, actor, params, body }, deps) {
    const outcome = await markInboundMessageRead(deps.readReceipts, {
      accountId,
      messageId: params.message_id,
      typing: body.typing,
      actor,
    });
    if (outcome.kind === "refused") throw outcome.error;
    const { receipt } = outcome;
    return {
      message_id: receipt.messageId,
      phone_number_id: receipt.phoneNumberId,
      read: true,
      typing: receipt.typing,
      read_at: receipt.readAt.toISOString(),
    } satisfies ReadOut["data"];
  },
});
