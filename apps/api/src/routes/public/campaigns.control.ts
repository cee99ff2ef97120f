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
import { cancelCampaign, pauseCampaign, resumeCampaign, type CampaignControlDeps } from "@gw/core";
import type { ApiDeps } from "../../container.ts";
import { apiActor, authOf } from "../../http/auth.ts";

/** The controls that take no body: the verb in the path, its service, and how the document describes it. */
const CONTROLS = [
  {
    verb: "pause",
    operationId: "pauseCampaign",
    service: pauseCampaign,
    summary: "Pause a campaign",
    description:
      "From `running` or `scheduled`. Recipients being sent finish; the others wait for `resume`. No body (one sent is ignored). Audited as `api.campaign.paused`.",
    conflict: "The campaign is not running or scheduled.",
  },
  {
    verb: "resume",
    operationId: "resumeCampaign",
    service: resumeCampaign,
    summary: "Resume a paused campaign",
    description:
      "From `paused`: `running` again (`scheduled` while its `start_at` is ahead). No body (one sent is ignored). Audited as `api.campaign.resumed`.",
    conflict: "The campaign is not paused.",
  },
  {
    verb: "cancel",
    operationId: "cancelCampaign",
    service: cancelCampaign,
    summary: "Cancel a campaign",
    description:
      "From `draft`, `scheduled`, `running` or `paused`, for good: recipients not yet reserved become `cancelled`; one being sent finishes its send. No body (one sent is ignored). Audited as `api.campaign.cancelled`.",
    conflict: "The campaign is not draft, scheduled, running or paused.",
  },
] as const satisfies readonly {
  verb: string;
  operationId: string;
  service: typeof pauseCampaign;
  summary: string;
  description: string;
  conflict: string;
}[];

/** POST /public/v1/campaigns/{campaign_id}/pause, /resume and /cancel (no body). */
export function register(router: Router, deps: ApiDeps): void {
  const services: CampaignControlDeps = deps.campaigns;
  for (const control of CONTROLS) {
    router.post(`/campaigns/:campaign_id/${control.verb}`, async (req, res) => {
      const path = parseRequest(CampaignPath, "path", req.params);
      const data = await control.service(services, {
        accountId: authOf(req).accountId,
        actor: apiActor(req),
        campaignId: path.campaign_id,
      });
      res.json({ success: true, data });
    });
  }
}

export const operations: readonly PublicOperation[] = CONTROLS.map((control) => ({
  method: "post",
  path: `/campaigns/{campaign_id}/${control.verb}`,
  operationId: control.operationId,
  summary: control.summary,
  description: control.description,
  request: { params: CampaignPath },
  responses: {
    200: jsonResponse("The campaign after the change.", CampaignDetailOut),
    400: unreadableRequest("The path (an invalid %-escape)"),
    404: campaignNotFound,
    409: errorResponse(control.conflict, ["campaign_state_conflict"]),
    422: requestValidation("path"),
    ...campaignCommonResponses,
  },
}));
