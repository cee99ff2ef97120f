import { CampaignListOut, CampaignsQuery, jsonResponse, requestValidation } from "@gw/contracts";
import { listCampaigns } from "@gw/core/campaigns";
import { defineRoute } from "../define-route.ts";

/** GET /public/v1/campaigns: the account's campaigns with their progress, newest first. */
export const { register, operations } = defineRoute({
  method: "get",
  path: "/campaigns",
  operationId: "listCampaigns",
  scope: "messages:read",
  summary: "Campaigns",
  description: "Newest first, with their progress. Repeat with `before_id=next_before_id` until it is null.",
  request: { query: CampaignsQuery },
  responses: {
    200: jsonResponse("One page of campaigns.", CampaignListOut),
    422: requestValidation("query"),
  },
  handler: ({ accountId, query }, deps) =>
    listCampaigns(deps.campaigns, { accountId, limit: query.limit, beforeId: query.before_id }),
});
