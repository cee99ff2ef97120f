import { UsageOut, UsageQuery, jsonResponse, requestValidation, usageRange, USAGE_MAX_DAYS } from "@gw/contracts";
import { saoPauloDay, usageReport } from "@gw/core/pricing";
import { defineRoute } from "../define-route.ts";

/** GET /public/v1/usage: the account's cost ledger, priced messages and their estimated cost in BRL. */
export const { register, operations } = defineRoute({
  method: "get",
  path: "/usage",
  operationId: "getUsage",
  scope: "usage:read",
  summary: "Messages priced by Meta and their estimated cost",
  description: [
    "The account's cost ledger: the messages Meta reported a `pricing` for in their status webhooks, how many it",
    "charges (`pricing.type` `regular`; every other type costs 0) and their estimated cost in BRL by the",
    "deployment's rate card (an account may have rates of its own), grouped by São Paulo day, business number,",
    "pricing category and type. Categories and types are Meta's, verbatim; a charged message of a category",
    "without a rate is estimated at the marketing rate and counted in `fallback_messages`. An estimate: Meta's",
    `invoice applies volume tiers and its own exchange rate. At most ${USAGE_MAX_DAYS} days per query.`,
  ].join(" "),
  request: { query: UsageQuery },
  responses: {
    200: jsonResponse("The ledger for the range.", UsageOut),
    422: requestValidation("query: a date that is not YYYY-MM-DD, since after until, a range above 366 days"),
  },
  async handler({ accountId, query }, deps) {
    const { since, until } = usageRange(query, saoPauloDay(new Date()));
    return usageReport(deps, {
      accountId,
      since,
      until,
      groupBy: query.group_by,
      phoneNumberId: query.phone_number_id,
    });
  },
});
