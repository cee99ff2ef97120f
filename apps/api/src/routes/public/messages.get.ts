import { MessageDetailOut, MessagePath, jsonResponse, messageNotFound, resourcePathRefusals } from "@gw/contracts";
import { getMessageDetail } from "@gw/core/messages";
import { defineRoute } from "../define-route.ts";

/** GET /public/v1/messages/{message_id} (issue 37): one message as the gateway recorded it. */
export const { register, operations } = defineRoute({
  method: "get",
  path: "/messages/{message_id}",
  operationId: "getMessage",
  scope: "messages:read",
  summary: "One sent message",
  description:
    "A message the account sent (by the API, the panel or a campaign): its recipient, kind, template, current status (as `message.status` last reported it), Meta's pricing block, the failure when it failed, and `routed_via`, the Graph endpoint that carried it (`messages`, or `marketing_messages` for a number whose MARKETING templates go through Meta's Marketing Messages API).",
  request: { params: MessagePath },
  responses: {
    200: jsonResponse("The message.", MessageDetailOut),
    ...resourcePathRefusals(messageNotFound),
  },
  handler: ({ accountId, params }, deps) => getMessageDetail(deps, { accountId, messageId: params.message_id }),
});
