import type { Sql } from "@gw/db";
import { recordAudit } from "../audit/audit.ts";
import type { PendingDelivery } from "../deliveries/attempt/outbox.ts";
import { applyEarlyStatuses, type ProviderStatusUpdate } from "./statuses.ts";

/**
 * Campaign sends recorded from their status webhook (hardening item 4). A campaign worker that dies after Meta
 * accepted a recipient's message but before recording it leaves the recipient `sending` and its Idempotency-Key
 * marked as having reached the provider; the redrive then settles it `send_unconfirmed`, although Meta sent it
 * once. Each campaign send therefore carries its recipient's id in Meta's `biz_opaque_callback_data`, which Meta
 * echoes in every status of the message: the first status of a message the gateway never recorded names the
 * recipient, and the send is recorded then, as the worker would have (message row, audit entry, the key's `sent`
 * outcome, the recipient `sent`). Only a recipient whose key reached the provider and is still in flight, or was
 * settled `send_unconfirmed`, is taken: the status proves Meta accepted exactly that try. The status must come from
 * the campaign's own business number (its change's `metadata.phone_number_id`), of the campaign's account: a callback
 * echoed on another number's message (another account's, or a forged `gw1:cr:` of one's own) proves nothing.
 */

const RECIPIENT_CALLBACK = /^gw1:cr:([1-9]\d{0,18})$/;

/** The `biz_opaque_callback_data` of a campaign recipient's send. */
export function recipientCallbackData(recipientId: string): string {
  return `gw1:cr:${recipientId}`;
}

/** The campaign recipient a status's callback data names, if it is one of ours. */
function recipientOfCallback(data: string | undefined): string | null {
  return data === undefined ? null : (RECIPIENT_CALLBACK.exec(data)?.[1] ?? null);
}

// One statement: the recipients whose send the statuses prove and the gateway never recorded, their message (as
// storeAcceptedMessage writes it, under the wamid lock the caller holds), the recipient `sent`, the key `sent`.
const ADOPT = `
WITH input AS (
  SELECT DISTINCT ON (wamid) * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[])
    AS t(wamid, recipient_id, recipient_user_id, phone_number_id)
), target AS (
  SELECT i.wamid, i.recipient_user_id, r.id AS recipient_id, r.contact, r.client_ref, c.id AS campaign_id,
    c.account_id, c.phone_number_id, c.template_name, k.id AS key_id
  FROM input i
  JOIN campaign_recipients r ON r.id = i.recipient_id
  JOIN campaigns c ON c.id = r.campaign_id AND c.phone_number_id = i.phone_number_id
  JOIN business_numbers b ON b.phone_number_id = i.phone_number_id AND b.account_id = c.account_id
  JOIN idempotency_keys k ON k.account_id = c.account_id AND k.key = 'campaign:' || r.id
  WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.wamid = i.wamid)
    AND k.provider_called_at IS NOT NULL AND (k.state = 'in_flight' OR k.outcome ->> 'kind' = 'unconfirmed')
    AND (r.status = 'sending' OR (r.status = 'failed' AND r.error_code = 'send_unconfirmed'))
  FOR UPDATE OF r, k
), stored AS (
  INSERT INTO messages (account_id, phone_number_id, "to", wamid, kind, template_name, status, client_ref, campaign_id,
    request_id, contact_key, recipient_user_id)
  SELECT account_id, phone_number_id, contact, wamid, 'template', template_name, 'accepted', client_ref, campaign_id,
    'campaign:' || campaign_id || ':' || recipient_id, gateway_contact_key(account_id, contact), recipient_user_id
  FROM target
  ON CONFLICT (wamid) DO NOTHING
  RETURNING id, wamid
), recipients AS (
  UPDATE campaign_recipients r SET status = 'sent', wamid = s.wamid, message_id = s.id, error_code = NULL,
    error_message = NULL, not_before = NULL, updated_at = now()
  FROM target t JOIN stored s ON s.wamid = t.wamid
  WHERE r.id = t.recipient_id
), keys AS (
  UPDATE idempotency_keys k SET state = 'completed', wamid = t.wamid, updated_at = now(),
    outcome = jsonb_build_object('kind', 'sent', 'message', jsonb_build_object('messageId', t.wamid, 'to', t.contact,
      'type', 'template', 'phoneNumberId', t.phone_number_id, 'clientRef', t.client_ref))
  FROM target t JOIN stored s ON s.wamid = t.wamid
  WHERE k.id = t.key_id
)
SELECT t.account_id, t.wamid, t.campaign_id::text, t.recipient_id::text, t.contact, t.template_name
FROM target t JOIN stored s ON s.wamid = t.wamid`;

interface AdoptedRow {
  account_id: string;
  wamid: string;
  campaign_id: string;
  recipient_id: string;
  contact: string;
  template_name: string;
}

/**
 * Inside the webhook's transaction, after `lockWamids`: records the campaign sends the statuses prove and the gateway
 * never recorded (a status without its business number proves none), and applies the statuses that were parked for
 * them. Only a message's first statuses (`sent`, `failed`) are looked at: one statement per payload that carries any,
 * none otherwise. Returns the deliveries the parked statuses created.
 */
export async function adoptCampaignSends(
  sql: Sql,
  updates: readonly (ProviderStatusUpdate & { phoneNumberId: string | null })[],
): Promise<PendingDelivery[]> {
  const candidates = updates.flatMap((update) => {
    const recipientId = recipientOfCallback(update.biz_opaque_callback_data);
    return recipientId !== null &&
      update.phoneNumberId !== null &&
      (update.status === "sent" || update.status === "failed")
      ? [
          {
            wamid: update.id,
            recipientId,
            recipientUserId: update.recipient_user_id ?? null,
            phoneNumberId: update.phoneNumberId,
          },
        ]
      : [];
  });
  if (candidates.length === 0) return [];
  const { rows } = await sql.query<AdoptedRow>({
    name: "adopt-campaign-sends",
    text: ADOPT,
    values: [
      candidates.map((c) => c.wamid),
      candidates.map((c) => c.recipientId),
      candidates.map((c) => c.recipientUserId),
      candidates.map((c) => c.phoneNumberId),
    ],
  });
  const deliveries: PendingDelivery[] = [];
  for (const row of rows) {
    await recordAudit(sql, {
      accountId: row.account_id,
      actor: { id: `campaign:${row.campaign_id}`, origin: "system", requestId: `campaign:${row.campaign_id}` },
      action: "api.messages.send",
      target: `message:${row.wamid}`,
      details: { to: row.contact, type: "template", template: row.template_name, recorded_from: "status_webhook" },
    });
    deliveries.push(...(await applyEarlyStatuses(sql, row.wamid)));
  }
  return deliveries;
}
