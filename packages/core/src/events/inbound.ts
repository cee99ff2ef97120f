import { MESSAGE_RECEIVED_TYPES } from "@gw/contracts";
import type { Sql } from "@gw/db";
import type { InboundMessage } from "@gw/meta";
import { WINDOW_MS } from "../windows/windows.ts";
import { contactOrderingKey } from "../deliveries/attempt/ordering.ts";
import { type PendingDelivery } from "../deliveries/attempt/outbox.ts";

/** The 11 values of spec 6.3 (the contract's list); every other Meta type (reaction, order, system, ...) is `unsupported`. */
export const RECEIVED_TYPES = MESSAGE_RECEIVED_TYPES;
export type ReceivedType = (typeof RECEIVED_TYPES)[number];

const MEDIA_TYPES = ["image", "audio", "video", "document", "sticker"] as const;
type MediaType = (typeof MEDIA_TYPES)[number];

function isMediaType(type: string): type is MediaType {
  return (MEDIA_TYPES as readonly string[]).includes(type);
}

function isReceivedType(type: string): type is ReceivedType {
  return (RECEIVED_TYPES as readonly string[]).includes(type);
}

/**
 * Map Meta's inbound message to the data of `message.received` (spec 6.3, and the 2026 sender fields: `from` is the
 * phone when Meta shared it, null when it withheld it; `from_user_id` the sender's BSUID).
 */
export function toReceivedData(inbound: InboundMessage, phoneNumberId: string, receivedAt = new Date()) {
  const { message, sender } = inbound;
  const type: ReceivedType = isReceivedType(message.type) ? message.type : "unsupported";
  const media = isMediaType(type) ? message[type] : undefined;
  let text: string | null = null;
  if (type === "text") text = message.text?.body ?? null;
  else if (media) text = media.caption ?? null;
  else if (type === "button") text = message.button?.text ?? null;
  else if (type === "interactive")
    text = message.interactive?.button_reply?.title ?? message.interactive?.list_reply?.title ?? null;

  // Unix seconds; anything else (or a value no Date can hold) is the time we received it.
  const seconds = /^\d{1,11}$/.test(message.timestamp) ? Number(message.timestamp) : Number.NaN;
  const occurredAt =
    seconds > 0 && seconds * 1000 <= receivedAt.getTime() + 86_400_000 ? new Date(seconds * 1000) : receivedAt;
  return {
    occurredAt,
    data: {
      message_id: message.id,
      from: sender.phone,
      from_user_id: sender.bsuid,
      from_parent_user_id: sender.parentBsuid,
      from_username: sender.username,
      phone_number_id: phoneNumberId,
      type,
      text,
      media_id: media?.id ?? null,
      media_mime: media?.mime_type ?? null,
      media_filename: type === "document" ? (media?.filename ?? null) : null,
      reply_to_message_id: message.context?.id ?? null,
      contact_name: sender.name,
      occurred_at: occurredAt.toISOString(),
      window_expires_at: new Date(occurredAt.getTime() + WINDOW_MS).toISOString(),
    },
  };
}

// One statement: store the message once (provider retries are duplicates), extend the contact's window (the
// greatest times win, spec 6.3 rule 1) and draw one delivery id per subscribed integration — all only when the
// message is new.
const STORE_INBOUND = `
WITH stored AS (
  INSERT INTO inbound_messages (account_id, phone_number_id, from_number, wamid, type, text, media_id, media_mime, media_filename,
    reply_to_wamid, contact_name, occurred_at, window_expires_at, contact_key, from_user_id, from_parent_user_id,
    from_username)
  VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
  ON CONFLICT (wamid) DO NOTHING
  RETURNING id
), window_extended AS (
  INSERT INTO contact_windows (phone_number_id, contact, last_inbound_at, expires_at)
  SELECT $2, $14, $12, $13 FROM stored
  ON CONFLICT (phone_number_id, contact) DO UPDATE SET
    last_inbound_at = GREATEST(contact_windows.last_inbound_at, EXCLUDED.last_inbound_at),
    expires_at = GREATEST(contact_windows.expires_at, EXCLUDED.expires_at)
)
SELECT s.id AS integration_id, nextval(pg_get_serial_sequence('deliveries', 'id'))::text AS id
FROM stored, LATERAL (SELECT id, created_at FROM integrations
  WHERE account_id = $1::uuid AND active AND 'message.received' = ANY(events)) AS s
ORDER BY s.created_at, s.id`;

/**
 * Store an inbound message and extend its contact's window (keyed by the contact, whichever identifier the
 * integrator replies to); returns the `message.received` deliveries to insert.
 */
export async function applyInbound(
  sql: Sql,
  input: {
    accountId: string;
    phoneNumberId: string;
    inbound: InboundMessage;
    /** The sender's contact key (contacts/learnContacts). */
    contactKey: string;
    receivedAt?: Date;
  },
): Promise<PendingDelivery[]> {
  const { occurredAt, data } = toReceivedData(input.inbound, input.phoneNumberId, input.receivedAt);
  const { rows } = await sql.query<{ integration_id: string; id: string }>({
    name: "store-inbound",
    text: STORE_INBOUND,
    values: [
      input.accountId,
      input.phoneNumberId,
      data.from,
      data.message_id,
      data.type,
      data.text,
      data.media_id,
      data.media_mime,
      data.media_filename,
      data.reply_to_message_id,
      data.contact_name,
      occurredAt,
      new Date(data.window_expires_at),
      input.contactKey,
      data.from_user_id,
      data.from_parent_user_id,
      data.from_username,
    ],
  });
  return rows.map((row) => ({
    id: row.id,
    accountId: input.accountId,
    integrationId: row.integration_id,
    event: "message.received",
    orderingKey: contactOrderingKey(input.contactKey),
    data,
  }));
}
