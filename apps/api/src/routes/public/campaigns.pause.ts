import type { Router } from "express";
import {
  CampaignDetailOut,
  CampaignPath,
  campaignCommonResponses,
  campaignNotFound,
  errorResponse,
  jsonResponse,
  parseRequest,
  requestValidation,
  unreadableRequest,
  type PublicOperation,
} from "@gw/contracts";
import { pauseCampaign } from "@gw/core";
import type { ApiDeps } from "../../container.ts";
import { authOf } from "../../http/auth.ts";

/** POST /public/v1/campaigns/{campaign_id}/pause (no body). */
export function register(router: Router, deps: ApiDeps): void {
  router.post("/campaigns/:campaign_id/pause", async (req, res) => {
    const auth = authOf(req);
    const path = parseRequest(CampaignPath, "path", req.params);
    const data = await pauseCampaign(deps.campaigns, {
      accountId: auth.accountId,
      actor: `api_key:${auth.keyId}`,
      origin: "api",
      requestId: req.requestId,
      campaignId: path.campaign_id,
    });
    res.json({ success: true, data });
  });
}

export const operations: readonly PublicOperation[] = [
  {
    method: "post",
    path: "/campaigns/{campaign_id}/pause",
    operationId: "pauseCampaign",
    summary: "Pause a campaign",
    description:
      "From `running` or `scheduled`. Recipients being sent finish; the others wait for `resume`. No body (one sent is ignored). Audited as `api.campaign.paused`.",
    request: { params: CampaignPath },
    responses: {
      200: jsonResponse("The campaign after the change.", CampaignDetailOut),
      400: unreadableRequest("The path (an invalid %-escape)"),
      404: campaignNotFound,
      409: errorResponse("The campaign is not running or scheduled.", ["campaign_state_conflict"]),
      422: requestValidation("path"),
      ...campaignCommonResponses,
    },
  },
];
