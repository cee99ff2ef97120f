import {
  CampaignDetailOut,
  CampaignPath,
  CampaignStartIn,
  campaignNotFound,
  errorResponse,
  jsonResponse,
  unreadableRequest,
  refusalOrValidation,
} from "@gw/contracts";
import { startCampaign } from "@gw/core/campaigns";
import { defineRoute } from "../define-route.ts";

/** POST /public/v1/campaigns/{campaign_id}/start: only with the accepted recipient count of its validation. */
export const { register, operations } = defineRoute({
  method: "post",
  path: "/campaigns/{campaign_id}/start",
  operationId: "startCampaign",
  scope: "messages:send",
  summary: "Start a draft campaign",
  description:
    "Only with `accepted_recipients` equal to the campaign's accepted count (`campaign_count_mismatch` otherwise), so a campaign never starts on a list its creator did not see validated. It runs at once, or at its `start_at` (status `scheduled` until then). Audited as `api.campaign.started`.",
  request: {
    params: CampaignPath,
    body: { schema: CampaignStartIn, examples: [{ name: "start", summary: "Start" }] },
  },
  responses: {
    200: jsonResponse("The campaign, `running` or `scheduled`.", CampaignDetailOut),
    400: unreadableRequest("The path (an invalid %-escape) or the body"),
    404: campaignNotFound,
    409: errorResponse("The campaign is not a draft, or `accepted_recipients` is not its accepted count.", [
      "campaign_state_conflict",
      "campaign_count_mismatch",
    ]),
    413: errorResponse("Body above 256 KiB.", ["payload_too_large"]),
    422: refusalOrValidation(
      "The campaign has no accepted recipient — error envelope, code `campaign_empty`; Meta keeps the number's WhatsApp Business Account banned or disconnected — `account_disabled`; or an invalid path or body — `HTTPValidationError`.",
      ["campaign_empty", "account_disabled"],
    ),
  },
  handler: ({ accountId, actor, params, body }, deps) =>
    startCampaign(deps.campaigns, {
      accountId,
      actor,
      campaignId: params.campaign_id,
      acceptedRecipients: body.accepted_recipients,
    }),
});
