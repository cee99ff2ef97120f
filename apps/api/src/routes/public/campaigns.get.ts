import { CampaignDetailOut, CampaignPath, campaignNotFound, jsonResponse, resourcePathRefusals } from "@gw/contracts";
import { getCampaign } from "@gw/core/campaigns";
import { defineRoute } from "../define-route.ts";

/** GET /public/v1/campaigns/{campaign_id}: progress, ETA and the validation report. */
export const { register, operations } = defineRoute({
  method: "get",
  path: "/campaigns/{campaign_id}",
  operationId: "getCampaign",
  scope: "messages:read",
  summary: "One campaign, with its progress",
  description:
    "`progress` counts each recipient once, in its furthest state (delivered and read come from the provider's statuses). `eta_seconds` is what the queued recipients need at the number's rate in force.",
  request: { params: CampaignPath },
  responses: {
    200: jsonResponse("The campaign.", CampaignDetailOut),
    ...resourcePathRefusals(campaignNotFound),
  },
  handler: ({ accountId, params }, deps) => getCampaign(deps.campaigns, { accountId, campaignId: params.campaign_id }),
});
