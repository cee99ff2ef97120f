// Meta's status webhooks as the provider sandbox posts them (apps/provider-sandbox/src/webhooks.ts): the
// `whatsapp_business_account` envelope with one change whose value lists `statuses`, signed with
// X-Hub-Signature-256 = "sha256=" + hex HMAC-SHA256 of the raw body with the app secret.
import { createHmac } from "node:crypto";

export type MetaStatus = "sent" | "delivered" | "read";

export function signMeta(appSecret: string, raw: Buffer): string {
  return `sha256=${createHmac("sha256", appSecret).update(raw).digest("hex")}`;
}

/** `1555` + the last 7 digits of the phone_number_id, as the sandbox derives display numbers. */
function displayNumber(phoneNumberId: string): string {
  return `1555${phoneNumberId.slice(-7)}`;
}

function statusEntry(wamid: string, status: MetaStatus, recipient: string, timestamp: number): Record<string, unknown> {
  const entry: Record<string, unknown> = { id: wamid, status, timestamp: String(timestamp), recipient_id: recipient };
  // Meta prices `sent` and `delivered`; a free-form reply inside the window is `service`.
  if (status !== "read")
    entry.pricing = { billable: false, pricing_model: "PMP", type: "free_customer_service", category: "service" };
  return entry;
}

export interface SignedPayload {
  body: Buffer;
  signature: string;
  statuses: number;
}

/** One signed webhook carrying `status` for each of `wamids`. */
export function statusWebhook(options: {
  appSecret: string;
  wabaId: string;
  phoneNumberId: string;
  recipient: string;
  wamids: string[];
  status: MetaStatus;
}): SignedPayload {
  const timestamp = Math.floor(Date.now() / 1000);
  const payload = {
    object: "whatsapp_business_account",
    entry: [
      {
        id: options.wabaId,
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: {
                display_phone_number: displayNumber(options.phoneNumberId),
                phone_number_id: options.phoneNumberId,
              },
              statuses: options.wamids.map((w) => statusEntry(w, options.status, options.recipient, timestamp)),
            },
          },
        ],
      },
    ],
  };
  const body = Buffer.from(JSON.stringify(payload), "utf8");
  return { body, signature: signMeta(options.appSecret, body), statuses: options.wamids.length };
}
