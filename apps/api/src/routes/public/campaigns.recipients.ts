import {
  CampaignPath,
  CampaignRecipientListOut,
  CampaignRecipientsQuery,
  campaignNotFound,
  jsonResponse,
  resourcePathRefusals,
} from "@gw/contracts";
import { listCampaignRecipients } from "@gw/core/campaigns";
import { defineRoute } from "../define-route.ts";

/** GET /public/v1/campaigns/{campaign_id}/recipients: each recipient's outcome, with its error code. */
export const { register, operations } = defineRoute({
  method: "get",
  path: "/campaigns/{campaign_id}/recipients",
  operationId: "listCampaignRecipients",
  scope: "messages:read",
  summary: "A campaign's recipients and their outcome",
  description:
    "In list order. `status` filters by outcome. `error_code` is the stable code of the refusal or of the failed status. Repeat with `after_id=next_after_id` until it is null.",
  request: { params: CampaignPath, query: CampaignRecipientsQuery },
  responses: {
    200: jsonResponse("One page of recipients.", CampaignRecipientListOut),
    ...resourcePathRefusals(campaignNotFound, "path or query"),
  },
  handler: ({ accountId, params, query }, deps) =>
    listCampaignRecipients(deps, {
      accountId,
      campaignId: params.campaign_id,
      status: query.status,
      limit: query.limit,
      afterId: query.after_id,
    }),
});
