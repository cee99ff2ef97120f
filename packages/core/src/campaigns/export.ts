import type { Db } from "@gw/db";
import { auditAction, recordAudit } from "../audit/audit.ts";
import { RFC_CSV, csvHeader, csvLine, type CsvDialect } from "../csv/write.ts";
import type { CampaignActor } from "./model.ts";
import { ensureCampaign, recipientsPage, toRecipientView } from "./views.ts";

export const RECIPIENT_EXPORT_COLUMNS = [
  "row",
  "to",
  "client_ref",
  "status",
  "message_id",
  "error_code",
  "error_message",
  "attempts",
  "updated_at",
] as const;

/**
 * The outcome list as CSV lines (header first), read in pages so a 100 000-recipient campaign is never in memory
 * at once. The campaign is looked up before the first line, so a missing one fails before anything is written; the
 * export is audited then (`<origin>.campaign.exported`: the list holds the recipients' numbers).
 */
export async function exportCampaignRecipients(
  deps: { db: Db },
  input: CampaignActor & {
    campaignId: string;
    /** How the lines are written: the API's RFC 4180 by default, `SPREADSHEET_CSV` for the panel. */
    dialect?: CsvDialect;
    pageSize?: number;
  },
): Promise<AsyncIterable<string>> {
  await ensureCampaign(deps.db, input.accountId, input.campaignId);
  await recordAudit(deps.db.sql, {
    accountId: input.accountId,
    actor: input.actor,
    action: auditAction(input.actor, "campaign.exported"),
    target: `campaign:${input.campaignId}`,
  });
  const pageSize = input.pageSize ?? 5_000;
  const dialect = input.dialect ?? RFC_CSV;
  return (async function* lines() {
    yield csvHeader(RECIPIENT_EXPORT_COLUMNS, dialect);
    let afterId = 0;
    for (;;) {
      const rows = await recipientsPage(deps.db, input.campaignId, afterId, null, pageSize);
      if (rows.length === 0) return;
      yield rows
        .map(toRecipientView)
        .map((r) =>
          csvLine(
            [
              r.row,
              r.to,
              r.client_ref,
              r.status,
              r.message_id,
              r.error_code,
              r.error_message,
              r.attempts,
              r.updated_at,
            ],
            dialect,
          ),
        )
        .join("");
      const last = rows.at(-1);
      if (!last || rows.length < pageSize) return;
      afterId = Number(last.id);
    }
  })();
}
