import {
  ConversationPath,
  HandoverIn,
  HandoverOut,
  errorResponse,
  jsonResponse,
  payloadTooLarge,
  requestValidation,
  type ExampleName,
} from "@gw/contracts";
import { handOverConversation } from "@gw/core/conversations";
import { defineRoute } from "../define-route.ts";
import { unknownNumber } from "../unknown-number.ts";

const EXAMPLE_NAMES: readonly ExampleName[] = [
  { name: "to_human", summary: "The bot asks for a person" },
  { name: "to_bot", summary: "The person gives the conversation back to the bot" },
];

/** POST /public/v1/conversations/{recipient}/handover (issue 39): a bot and a person, one conversation. */
export const { register, operations } = defineRoute({
  method: "post",
  path: "/conversations/{recipient}/handover",
  operationId: "handOverConversation",
  scope: "messages:send",
  summary: "Hand a conversation to a person, or back to the bot",
  description: [
    "Who answers the customer on the business's side: `to: human` when the bot asks for a person (the customer tapped",
    '"falar com atendente"), `to: bot` when the person gives the conversation back. From then on `message.received`',
    "(payload version 2) carries `handler`, so the bot stays quiet while a person holds it, and",
    "GET /conversations/{recipient} shows it. A person's hold goes back to the bot after the account's timeout (24 h by",
    "default) without a new handover; handing it over again renews it. Nothing is sent to the customer. Integrations",
    "that chose `conversation.updated` get it (`change: handover`). Audited as `api.conversation.handover`.",
  ].join(" "),
  request: {
    params: ConversationPath,
    body: { schema: HandoverIn, examples: EXAMPLE_NAMES },
  },
  responses: {
    200: jsonResponse("The conversation's handler now.", HandoverOut),
    400: errorResponse("The path or body cannot be read, the recipient is not valid, or the account has no number.", [
      "bad_request",
      "invalid_recipient",
      "no_connected_number",
    ]),
    413: payloadTooLarge,
    422: requestValidation("path or body; also a `phone_number_id` that is not one of the account's numbers"),
  },
  async handler({ accountId, actor, params, body }, deps) {
    const outcome = await handOverConversation(deps, {
      accountId,
      recipient: params.recipient,
      phoneNumberId: body.phone_number_id,
      to: body.to,
      note: body.note,
      actor,
      by: "api",
    });
    if (outcome.kind === "refused") throw outcome.error;
    if (outcome.kind === "unknown_number") throw unknownNumber(body.phone_number_id, "body");
    return { recipient: outcome.recipient, phone_number_id: outcome.phoneNumberId, handler: outcome.handler };
  },
});
