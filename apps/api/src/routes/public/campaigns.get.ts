import type { Router } from "express";
import {
  CampaignDetailOut,
  CampaignPath,
  campaignCommonResponses,
  campaignNotFound,
  jsonResponse,
  parseRequest,
  requestValidation,
  unreadableRequest,
  type PublicOperation,
} from "@gw/contracts";
import { getCampaign } from "@gw/core";
import type { ApiDeps } from "../../container.ts";
import { authOf } from "../../http/auth.ts";

/** GET /public/v1/campaigns/{campaign_id}: progress, ETA and the validation report. */
export function register(router: Router, deps: ApiDeps): void {
  router.get("/campaigns/:campaign_id", async (req, res) => {
    const { accountId } = authOf(req);
    const path = parseRequest(CampaignPath, "path", req.params);
    const data = await getCampaign(deps.campaigns, { accountId, campaignId: path.campaign_id });
    res.json({ success: true, data });
  });
}

export const operations: readonly PublicOperation[] = [
  {
    method: "get",
    path: "/campaigns/{campaign_id}",
    operationId: "getCampaign",
    summary: "One campaign, with its progress",
    description:
      "`progress` counts each recipient once, in its furthest state (delivered and read come from the provider's statuses). `eta_seconds` is what the queued recipients need at the number's rate in force.",
    request: { params: CampaignPath },
    responses: {
      200: jsonResponse("The campaign.", CampaignDetailOut),
      400: unreadableRequest("The path (an invalid %-escape)"),
      404: campaignNotFound,
      422: requestValidation("path"),
      ...campaignCommonResponses,
    },
  },
];
