import { CSV_EXPORT_FORMAT, CampaignPath, campaignNotFound, resourcePathRefusals } from "@gw/contracts";
import { RECIPIENT_EXPORT_COLUMNS, exportCampaignRecipients } from "@gw/core/campaigns";
import { defineCsvExport } from "../define-route.ts";

/** GET /public/v1/campaigns/{campaign_id}/recipients/export: the outcome list as a CSV file. */
export const { register, operations } = defineCsvExport({
  path: "/campaigns/{campaign_id}/recipients/export",
  operationId: "exportCampaignRecipients",
  scope: "messages:read",
  summary: "A campaign's outcome list as CSV",
  description: `Streamed, one line per recipient in list order, columns: ${RECIPIENT_EXPORT_COLUMNS.join(", ")}. ${CSV_EXPORT_FORMAT}`,
  request: { params: CampaignPath },
  responses: {
    ...resourcePathRefusals(campaignNotFound),
  },
  async handler({ accountId, actor, params }, deps) {
    // Looked up first: a missing campaign is a 404 envelope, not a CSV cut short.
    const lines = await exportCampaignRecipients(deps, { accountId, actor, campaignId: params.campaign_id });
    return {
      filename: `campanha-${params.campaign_id}.csv`,
      lines,
      log: { download: "campaign", campaignId: params.campaign_id },
    };
  },
});
