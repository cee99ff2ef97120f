import {
  NumberDetailOut,
  NumberPath,
  NumberSettingsIn,
  jsonResponse,
  numberNotFound,
  payloadTooLarge,
  resourcePathRefusals,
} from "@gw/contracts";
import { updateNumberSettings } from "@gw/core/accounts";
import { defineRoute } from "../define-route.ts";

/** PATCH /public/v1/numbers/{phone_number_id} (issue 37): the number's settings the account may change. */
export const { register, operations } = defineRoute({
  method: "patch",
  path: "/numbers/{phone_number_id}",
  operationId: "updateNumber",
  scope: "messages:send",
  summary: "Change a business number's settings",
  description: [
    "`marketing_messages: on` sends the number's MARKETING templates (the API's sends and campaigns alike) through",
    "Meta's Marketing Messages API (`POST /{phone_number_id}/marketing_messages`); every other category stays on the",
    "Cloud API. Turn it on once the business is onboarded there. A template's category is the catalogue's, kept",
    "current by Meta's `template_category_update`. A refusal of that API is answered as is (`template_syncing`,",
    "`template_not_eligible`, `marketing_messages_unavailable`...), never sent again through /messages. Answers,",
    "statuses and events look the same whichever endpoint carried a send; GET /messages/{message_id} says which",
    "(`routed_via`). Every pod routes by the change from its next send. Audited as `api.number.marketing_messages`.",
  ].join(" "),
  request: {
    params: NumberPath,
    body: {
      schema: NumberSettingsIn,
      examples: [{ name: "on", summary: "Marketing through the Marketing Messages API" }],
    },
  },
  responses: {
    200: jsonResponse("The number as saved.", NumberDetailOut),
    ...resourcePathRefusals(numberNotFound, "path or body"),
    413: payloadTooLarge,
  },
  handler: ({ accountId, actor, params, body }, deps) =>
    updateNumberSettings(deps, {
      accountId,
      phoneNumberId: params.phone_number_id,
      marketingMessages: body.marketing_messages,
      actor,
    }),
});
