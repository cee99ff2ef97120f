import { NumberListOut, jsonResponse } from "@gw/contracts";
import { listNumberSettings } from "@gw/core/accounts";
import { defineRoute } from "../define-route.ts";

/** GET /public/v1/numbers (issue 37): the account's business numbers and their settings. */
export const { register, operations } = defineRoute({
  method: "get",
  path: "/numbers",
  operationId: "listNumbers",
  scope: "messages:read",
  summary: "Business numbers",
  description:
    "The account's business numbers, the default first, each with the pace its sends keep and whether its MARKETING templates go through Meta's Marketing Messages API (`marketing_messages`).",
  responses: {
    200: jsonResponse("The account's numbers.", NumberListOut),
  },
  handler: async ({ accountId }, deps) => ({ numbers: await listNumberSettings(deps, { accountId }) }),
});
