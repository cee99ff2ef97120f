import {
  ConversationOut,
  ConversationPath,
  ConversationQuery,
  errorResponse,
  jsonResponse,
  requestValidation,
} from "@gw/contracts";
import { conversationDetail, threadView } from "@gw/core/conversations";
import { windowView } from "@gw/core/windows";
import { defineRoute } from "../define-route.ts";
import { unknownNumber } from "../unknown-number.ts";

/** GET /public/v1/conversations/{recipient} (issue 37 part 4): the conversation's window and holder. */
export const { register, operations } = defineRoute({
  method: "get",
  path: "/conversations/{recipient}",
  operationId: "getConversation",
  scope: "messages:read",
  summary: "A conversation's window, handler and holder",
  description:
    "The customer's conversation on a business number (`phone_number_id`, the account's default otherwise): its 24-hour window, as GET /window/{to} says it; who answers the customer on the business's side (`handler`: the integrator's bot, or a person after POST /conversations/{recipient}/handover); and who holds it under Meta's Conversation Routing (`thread`): the gateway's app, another app (Meta's Business AI agent, say) or nobody after a release. The holder is the newest of what the customer's last message (on Meta's `messages` or `standby` field), Meta's handover notifications and the gateway's own thread control said. A customer the gateway never heard of answers a closed window held by the gateway (not an error).",
  request: { params: ConversationPath, query: ConversationQuery },
  responses: {
    200: jsonResponse("The conversation's window and holder.", ConversationOut),
    400: errorResponse("The path cannot be read, or the account has no number.", [
      "bad_request",
      "no_connected_number",
    ]),
    422: requestValidation("path or query; also a `phone_number_id` that is not one of the account's numbers"),
  },
  async handler({ accountId, params, query }, deps) {
    const outcome = await conversationDetail(deps, {
      accountId,
      recipient: params.recipient,
      phoneNumberId: query.phone_number_id,
    });
    if (outcome.kind === "refused") throw outcome.error;
    if (outcome.kind === "unknown_number") throw unknownNumber(query.phone_number_id, "query");
    return {
      recipient: outcome.recipient,
      phone_number_id: outcome.phoneNumberId,
      window: windowView(outcome.window),
      handler: outcome.handler,
      status: outcome.status,
      assignee: outcome.assignee,
      thread: threadView(outcome.thread),
    };
  },
});
