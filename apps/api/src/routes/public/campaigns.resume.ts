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
import { resumeCampaign } from "@gw/core";
import type { ApiDeps } from "../../container.ts";
import { authOf } from "../../http/auth.ts";

/** POST /public/v1/campaigns/{campaign_id}/resume (no body). */
export function register(router: Router, deps: ApiDeps): void {
  router.post("/campaigns/:campaign_id/resume", async (req, res) => {
    const auth = authOf(req);
    const path = parseRequest(CampaignPath, "path", req.params);
    const data = await resumeCampaign(deps.campaigns, {
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
    path: "/campaigns/{campaign_id}/resume",
    operationId: "resumeCampaign",
    summary: "Resume a paused campaign",
    description:
      "From `paused`: `running` again (`scheduled` while its `start_at` is ahead). No body (one sent is ignored). Audited as `api.campaign.resumed`.",
    request: { params: CampaignPath },
    responses: {
      200: jsonResponse("The campaign after the change.", CampaignDetailOut),
      400: unreadableRequest("The path (an invalid %-escape)"),
      404: campaignNotFound,
      409: errorResponse("The campaign is not paused.", ["campaign_state_conflict"]),
      422: requestValidation("path"),
      ...campaignCommonResponses,
    },
  },
];
