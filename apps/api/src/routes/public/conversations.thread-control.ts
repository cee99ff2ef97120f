import {
  ConversationPath,
  ThreadControlIn,
  ThreadControlOut,
  codeList,
  errorResponse,
  jsonResponse,
  payloadTooLarge,
  refusalOrValidation,
  tooManyRequests,
  type ExampleName,
} from "@gw/contracts";
import { controlThread, threadView } from "@gw/core/conversations";
import type { ErrorCode } from "@gw/errors";
import { defineRoute } from "../define-route.ts";
import { unknownNumber } from "../unknown-number.ts";

const REFUSED_422: readonly ErrorCode[] = ["account_restricted", "payment_issue", "provider_rejected"];

const EXAMPLE_NAMES: readonly ExampleName[] = [
  { name: "pass_to_ai_agent", summary: "Hand the conversation to Meta's Business AI agent, with a note for it" },
  { name: "take", summary: "Take the conversation (the number's escalation partner only)" },
  { name: "release", summary: "Let the conversation go; Meta's entry-point routing picks the next responder" },
];

/** POST /public/v1/conversations/{recipient}/thread-control (issue 37 part 4): Meta's thread control. */
export const { register, operations } = defineRoute({
  method: "post",
  path: "/conversations/{recipient}/thread-control",
  operationId: "controlConversationThread",
  scope: "messages:send",
  summary: "Pass, take or release a conversation (Conversation Routing)",
  description: [
    "Meta gives each customer's conversation on a business number one holder app (Conversation Routing). This calls",
    "Meta's thread control through the business number (`phone_number_id`, the account's default otherwise): `pass`",
    "hands the conversation to Meta's Business AI agent (`target_role: ai_agent`) or to the number's escalation",
    "partner, `take` takes it (the escalation partner only), `release` lets it go (Meta's entry-point routing picks",
    "who answers the customer's next message). Meta refuses an action that does not fit who holds the conversation:",
    "`thread_control_not_permitted`. No message is sent and nothing is billed; Meta notifies the other app, not this",
    "one, so no `conversation.handover` follows. While another app holds it, the customer's messages still reach",
    "version-2 integrations, with `standby: true`. The answer says who holds it now, as GET /conversations/{recipient}",
    "does. Safe to repeat after a network error (a repeat of a done action is refused as not permitted). Audited as",
    "`api.conversation.thread_control`.",
  ].join(" "),
  request: {
    params: ConversationPath,
    body: { schema: ThreadControlIn, examples: EXAMPLE_NAMES },
  },
  responses: {
    200: jsonResponse("Done at Meta; the conversation's holder now.", ThreadControlOut),
    400: errorResponse("The path or body cannot be read, the recipient is not valid, or the account has no number.", [
      "bad_request",
      "invalid_recipient",
      "no_connected_number",
    ]),
    409: errorResponse("Meta did not permit the action in the conversation's state.", ["thread_control_not_permitted"]),
    413: payloadTooLarge,
    422: refusalOrValidation(
      `Refused by Meta — error envelope, codes: ${codeList(REFUSED_422)}; or an invalid path or body (also a \`phone_number_id\` that is not one of the account's numbers) — \`HTTPValidationError\`.`,
      REFUSED_422,
      ["provider_rejected"],
    ),
    429: tooManyRequests(["api_rate_limited", "rate_limited"]),
    503: errorResponse("The provider could not be reached or did not confirm; nothing was recorded, repeat the call.", [
      "provider_unavailable",
    ]),
  },
  async handler({ accountId, actor, params, body }, deps) {
    const outcome = await controlThread(deps.threadControl, {
      accountId,
      recipient: params.recipient,
      phoneNumberId: body.phone_number_id,
      action: body.action,
      targetRole: body.target_role,
      metadata: body.metadata,
      actor,
    });
    if (outcome.kind === "refused") throw outcome.error;
    if (outcome.kind === "unknown_number") throw unknownNumber(body.phone_number_id, "body");
    return {
      recipient: outcome.recipient,
      phone_number_id: outcome.phoneNumberId,
      action: body.action,
      thread: threadView(outcome.thread),
    };
  },
});
