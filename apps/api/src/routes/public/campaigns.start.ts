import type { Router } from "express";
import {
  CampaignDetailOut,
  CampaignPath,
  CampaignStartIn,
  campaignCommonResponses,
  campaignNotFound,
  errorExamples,
  errorResponse,
  errorSchema,
  jsonRequestBody,
  jsonResponse,
  parseRequest,
  unreadableRequest,
  validationRef,
  type PublicOperation,
} from "@gw/contracts";
import { startCampaign } from "@gw/core";
import type { ApiDeps } from "../../container.ts";
import { apiActor, authOf } from "../../http/auth.ts";
import { jsonBody } from "../../http/json-body.ts";

/** POST /public/v1/campaigns/{campaign_id}/start: only with the accepted recipient count of its validation. */
export function register(router: Router, deps: ApiDeps): void {
  router.post("/campaigns/:campaign_id/start", jsonBody, async (req, res) => {
    const auth = authOf(req);
    const path = parseRequest(CampaignPath, "path", req.params);
    const body = parseRequest(CampaignStartIn, "body", req.body);
    const data = await startCampaign(deps.campaigns, {
      accountId: auth.accountId,
      actor: apiActor(req),
      campaignId: path.campaign_id,
      acceptedRecipients: body.accepted_recipients,
    });
    res.json({ success: true, data });
  });
}

export const operations: readonly PublicOperation[] = [
  {
    method: "post",
    path: "/campaigns/{campaign_id}/start",
    operationId: "startCampaign",
    summary: "Start a draft campaign",
    description:
      "Only with `accepted_recipients` equal to the campaign's accepted count (`campaign_count_mismatch` otherwise), so a campaign never starts on a list its creator did not see validated. It runs at once, or at its `start_at` (status `scheduled` until then). Audited as `api.campaign.started`.",
    request: { params: CampaignPath, body: jsonRequestBody(CampaignStartIn, [{ name: "start", summary: "Start" }]) },
    responses: {
      200: jsonResponse("The campaign, `running` or `scheduled`.", CampaignDetailOut),
      400: unreadableRequest("The path (an invalid %-escape) or the body"),
      404: campaignNotFound,
      409: errorResponse("The campaign is not a draft, or `accepted_recipients` is not its accepted count.", [
        "campaign_state_conflict",
        "campaign_count_mismatch",
      ]),
      413: errorResponse("Body above 256 KiB.", ["payload_too_large"]),
      422: {
        description:
          "The campaign has no accepted recipient — error envelope, code `campaign_empty`; Meta keeps the number's WhatsApp Business Account banned or disconnected — `account_disabled`; or an invalid path or body — `HTTPValidationError`.",
        content: {
          "application/json": {
            schema: { anyOf: [errorSchema(["campaign_empty", "account_disabled"]), validationRef] },
            examples: errorExamples(["campaign_empty", "account_disabled"]),
          },
        },
      },
      ...campaignCommonResponses,
    },
  },
];
