import type { DbTx } from "@gw/db";
import { normalizePhone } from "../phones/normalize.ts";
import { extendWindow, WINDOW_MS } from "../windows/windows.ts";
import { createDeliveries } from "./outbox.ts";

/** The 11 values of spec 6.3; every other Meta type (reaction, order, system, ...) is `unsupported`. */
export const RECEIVED_TYPES = [
  "text",
  "image",
  "audio",
  "video",
  "document",
  "sticker",
  "location",
  "contacts",
  "button",
  "interactive",
  "unsupported",
] as const;
export type ReceivedType = (typeof RECEIVED_TYPES)[number];

interface MetaMedia {
  id?: string;
  mime_type?: string;
  caption?: string;
  filename?: string;
}

/** One item of Meta's webhook `value.messages[]` (only the fields we read). */
export interface MetaInboundMessage {
  from: string;
  id: string;
  timestamp: string;
  type: string;
  text?: { body?: string };
  image?: MetaMedia;
  audio?: MetaMedia;
  video?: MetaMedia;
  document?: MetaMedia;
  sticker?: MetaMedia;
  button?: { text?: string; payload?: string };
  interactive?: {
    type?: string;
    button_reply?: { id?: string; title?: string };
    list_reply?: { id?: string; title?: string; description?: string };
  };
  context?: { id?: string; from?: string };
}

export interface MetaContact {
  wa_id?: string;
  profile?: { name?: string };
}

const MEDIA_TYPES = ["image", "audio", "video", "document", "sticker"] as const;
type MediaType = (typeof MEDIA_TYPES)[number];

function isMediaType(type: string): type is MediaType {
  return (MEDIA_TYPES as readonly string[]).includes(type);
}

/** Map Meta's inbound message to the data of `message.received` (spec 6.3). */
export function toReceivedData(message: MetaInboundMessage, phoneNumberId: string, contacts: MetaContact[]) {
  const type: ReceivedType = (RECEIVED_TYPES as readonly string[]).includes(message.type)
    ? (message.type as ReceivedType)
    : "unsupported";
  const media = isMediaType(type) ? message[type] : undefined;
  let text: string | null = null;
  if (type === "text") text = message.text?.body ?? null;
  else if (media) text = media.caption ?? null;
  else if (type === "button") text = message.button?.text ?? null;
  else if (type === "interactive")
    text = message.interactive?.button_reply?.title ?? message.interactive?.list_reply?.title ?? null;

  const seconds = Number(message.timestamp);
  const occurredAt = Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : new Date();
  const contact = contacts.find((c) => c.wa_id === message.from) ?? (contacts.length === 1 ? contacts[0] : undefined);
  return {
    occurredAt,
    data: {
      message_id: message.id,
      from: message.from,
      phone_number_id: phoneNumberId,
      type,
      text,
      media_id: media?.id ?? null,
      media_mime: media?.mime_type ?? null,
      media_filename: type === "document" ? (media?.filename ?? null) : null,
      reply_to_message_id: message.context?.id ?? null,
      contact_name: contact?.profile?.name ?? null,
      occurred_at: occurredAt.toISOString(),
      window_expires_at: new Date(occurredAt.getTime() + WINDOW_MS).toISOString(),
    },
  };
}

/** Store an inbound message once (provider retries are duplicates), extend the window, create deliveries. */
export async function applyInbound(
  tx: DbTx,
  accountId: string,
  phoneNumberId: string,
  message: MetaInboundMessage,
  contacts: MetaContact[],
): Promise<bigint[]> {
  const { occurredAt, data } = toReceivedData(message, phoneNumberId, contacts);
  const inserted = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO inbound_messages (account_id, phone_number_id, from_number, wamid, type, text, media_id, media_mime, media_filename,
      reply_to_wamid, contact_name, occurred_at, window_expires_at)
    VALUES (${accountId}::uuid, ${phoneNumberId}, ${data.from}, ${data.message_id}, ${data.type}, ${data.text}, ${data.media_id},
      ${data.media_mime}, ${data.media_filename}, ${data.reply_to_message_id}, ${data.contact_name}, ${occurredAt}, ${new Date(data.window_expires_at)})
    ON CONFLICT (wamid) DO NOTHING
    RETURNING id`;
  if (inserted.length === 0) return [];
  // Keyed like sends and window checks key the contact (normalized digits), so a 12-digit Brazilian
  // WhatsApp id opens the window of the number an integrator replies to.
  const contact = normalizePhone(data.from);
  await extendWindow(tx, phoneNumberId, contact.valid ? contact.digits : data.from, occurredAt);
  return createDeliveries(tx, accountId, "message.received", data);
}
