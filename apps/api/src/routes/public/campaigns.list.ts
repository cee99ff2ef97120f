import type { Router } from "express";
import {
  CampaignListOut,
  CampaignsQuery,
  campaignCommonResponses,
  jsonResponse,
  parseRequest,
  requestValidation,
  type PublicOperation,
} from "@gw/contracts";
import { listCampaigns } from "@gw/core";
import type { ApiDeps } from "../../container.ts";
import { authOf } from "../../http/auth.ts";

/** GET /public/v1/campaigns: the account's campaigns with their progress, newest first. */
export function register(router: Router, deps: ApiDeps): void {
  router.get("/campaigns", async (req, res) => {
    const { accountId } = authOf(req);
    const query = parseRequest(CampaignsQuery, "query", req.query);
    const data = await listCampaigns(deps.campaigns, { accountId, limit: query.limit, beforeId: query.before_id });
    res.json({ success: true, data });
  });
}

export const operations: readonly PublicOperation[] = [
  {
    method: "get",
    path: "/campaigns",
    operationId: "listCampaigns",
    summary: "Campaigns",
    description: "Newest first, with their progress. Repeat with `before_id=next_before_id` until it is null.",
    request: { query: CampaignsQuery },
    responses: {
      200: jsonResponse("One page of campaigns.", CampaignListOut),
      422: requestValidation("query"),
      ...campaignCommonResponses,
    },
  },
];
