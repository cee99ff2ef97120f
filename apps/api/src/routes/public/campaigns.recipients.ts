import type { Router } from "express";
import {
  CampaignPath,
  CampaignRecipientListOut,
  CampaignRecipientsQuery,
  campaignCommonResponses,
  campaignNotFound,
  jsonResponse,
  parseRequest,
  requestValidation,
  unreadableRequest,
  type PublicOperation,
} from "@gw/contracts";
import { listCampaignRecipients } from "@gw/core";
import type { ApiDeps } from "../../container.ts";
import { authOf } from "../../http/auth.ts";

/** GET /public/v1/campaigns/{campaign_id}/recipients: each recipient's outcome, with its error code. */
export function register(router: Router, deps: ApiDeps): void {
  router.get("/campaigns/:campaign_id/recipients", async (req, res) => {
    const { accountId } = authOf(req);
    const path = parseRequest(CampaignPath, "path", req.params);
    const query = parseRequest(CampaignRecipientsQuery, "query", req.query);
    const data = await listCampaignRecipients(
      { db: deps.db },
      { accountId, campaignId: path.campaign_id, status: query.status, limit: query.limit, afterId: query.after_id },
    );
    res.json({ success: true, data });
  });
}

export const operations: readonly PublicOperation[] = [
  {
    method: "get",
    path: "/campaigns/{campaign_id}/recipients",
    operationId: "listCampaignRecipients",
    summary: "A campaign's recipients and their outcome",
    description:
      "In list order. `status` filters by outcome. `error_code` is the stable code of the refusal or of the failed status. Repeat with `after_id=next_after_id` until it is null.",
    request: { params: CampaignPath, query: CampaignRecipientsQuery },
    responses: {
      200: jsonResponse("One page of recipients.", CampaignRecipientListOut),
      400: unreadableRequest("The path (an invalid %-escape)"),
      404: campaignNotFound,
      422: requestValidation("path or query"),
      ...campaignCommonResponses,
    },
  },
];
