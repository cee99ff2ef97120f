import type { Router } from "express";
import {
  CSV_EXPORT_FORMAT,
  CampaignPath,
  campaignCommonResponses,
  campaignNotFound,
  parseRequest,
  requestValidation,
  unreadableRequest,
  type PublicOperation,
} from "@gw/contracts";
import { RECIPIENT_EXPORT_COLUMNS, exportCampaignRecipients } from "@gw/core";
import { sendCsv } from "@gw/http";
import type { ApiDeps } from "../../container.ts";
import { apiActor, authOf } from "../../http/auth.ts";

/** GET /public/v1/campaigns/{campaign_id}/recipients/export: the outcome list as a CSV file. */
export function register(router: Router, deps: ApiDeps): void {
  router.get("/campaigns/:campaign_id/recipients/export", async (req, res) => {
    const { accountId } = authOf(req);
    const path = parseRequest(CampaignPath, "path", req.params);
    // Looked up first: a missing campaign is a 404 envelope, not a CSV cut short.
    const lines = await exportCampaignRecipients(
      { db: deps.db },
      { accountId, actor: apiActor(req), campaignId: path.campaign_id },
    );
    await sendCsv(
      res,
      {
        filename: `campanha-${path.campaign_id}.csv`,
        lines,
        log: { download: "campaign", campaignId: path.campaign_id },
      },
      deps.logger,
    );
  });
}

export const operations: readonly PublicOperation[] = [
  {
    method: "get",
    path: "/campaigns/{campaign_id}/recipients/export",
    operationId: "exportCampaignRecipients",
    summary: "A campaign's outcome list as CSV",
    description: `Streamed, one line per recipient in list order, columns: ${RECIPIENT_EXPORT_COLUMNS.join(", ")}. ${CSV_EXPORT_FORMAT}`,
    request: { params: CampaignPath },
    responses: {
      200: {
        description: "The CSV file.",
        content: { "text/csv": { schema: { type: "string" } } },
      },
      400: unreadableRequest("The path (an invalid %-escape)"),
      404: campaignNotFound,
      422: requestValidation("path"),
      ...campaignCommonResponses,
    },
  },
];
