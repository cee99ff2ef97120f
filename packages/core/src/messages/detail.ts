import type { MessageDetail } from "@gw/contracts";
import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";

interface MessageRow {
  wamid: string;
  to: string;
  phone_number_id: string;
  kind: string;
  template_name: string | null;
  status: string;
  routed_via: string | null;
  client_ref: string | null;
  campaign_id: string | null;
  created_at: Date;
  status_at: Date | null;
  pricing: Record<string, unknown> | null;
  error_code: number | null;
  error_message: string | null;
  error_reason: string | null;
}

/**
 * GET /public/v1/messages/{message_id}: one sent message of the account as the gateway recorded it, with the Graph
 * endpoint that carried it (issue 37: `marketing_messages` for a number routed through the Marketing Messages API; a
 * message recorded before the route was, by `/messages`). Another account's message, or an unknown one, is 404.
 */
export async function getMessageDetail(
  deps: { db: Db },
  input: { accountId: string; messageId: string },
): Promise<MessageDetail> {
  const { rows } = await deps.db.sql.query<MessageRow>({
    name: "message-detail",
    text: `SELECT wamid, "to", phone_number_id, kind, template_name, status, routed_via, client_ref,
        campaign_id::text AS campaign_id, created_at, status_at, pricing, error_code, error_message, error_reason
      FROM messages WHERE wamid = $1 AND account_id = $2::uuid`,
    values: [input.messageId, input.accountId],
  });
  const row = rows[0];
  if (!row) throw new ApiError("not_found", { message: "A mensagem não foi encontrada nesta conta." });
  return {
    message_id: row.wamid,
    to: row.to,
    phone_number_id: row.phone_number_id,
    type: row.kind,
    template: row.template_name,
    status: row.status,
    routed_via: row.routed_via === "marketing_messages" ? "marketing_messages" : "messages",
    client_ref: row.client_ref,
    campaign_id: row.campaign_id,
    created_at: row.created_at.toISOString(),
    status_at: row.status_at?.toISOString() ?? null,
    pricing: row.pricing,
    error:
      row.status === "failed" ? { code: row.error_code, message: row.error_message, reason: row.error_reason } : null,
  };
}
