import { MESSAGE_RECEIVED_TYPES, type MessageReceivedV2Members } from "@gw/contracts";
import type { Sql } from "@gw/db";
import type { InboundMessage, MetaContactCard, MetaInboundItem } from "@gw/meta";
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

/**
 * What payload version 2 adds to `message.received` (docs/webhooks.md), every member present; issue 28's
 * `payment_method` is apart (ReceivedPaymentMethod): present only on the answer it describes, so every other
 * version-2 body stays as issue 27 wrote it.
 */
export type ReceivedMembers = Omit<
  MessageReceivedV2Members,
  "payment_method" | "contact_phone" | "standby" | "handler"
>;
export type ReceivedPaymentMethod = NonNullable<MessageReceivedV2Members["payment_method"]>;

/**
 * The payload-version-2 members of an inbound message (issue 27): each from the object Meta named by `type`
 * (`interactive` only for a reply button or list row), the referral and forwarded flags of any message, and the media's
 * checksum and voice flag; null (false for the flags) when not applicable. The parser dropped what was malformed.
 */
export function receivedMembers(message: MetaInboundItem): ReceivedMembers {
  const type = message.type;
  const media = isMediaType(type) ? message[type] : undefined;
  const context = message.context;
  const frequently = context?.frequently_forwarded === true;
  const referral = message.referral;
  return {
    interactive: type === "interactive" ? interactiveReply(message.interactive) : null,
    button:
      type === "button" && message.button
        ? { payload: message.button.payload ?? null, text: message.button.text ?? null }
        : null,
    location:
      type === "location" && message.location
        ? {
            latitude: message.location.latitude,
            longitude: message.location.longitude,
            name: message.location.name ?? null,
            address: message.location.address ?? null,
            url: message.location.url ?? null,
          }
        : null,
    contacts: type === "contacts" && message.contacts?.length ? message.contacts.map(receivedContact) : null,
    reaction:
      type === "reaction" && message.reaction
        ? { message_id: message.reaction.message_id, emoji: message.reaction.emoji || null }
        : null,
    referral: referral
      ? {
          source_type: referral.source_type ?? null,
          source_id: referral.source_id ?? null,
          source_url: referral.source_url ?? null,
          headline: referral.headline ?? null,
          body: referral.body ?? null,
          media_type: referral.media_type ?? null,
          image_url: referral.image_url ?? null,
          video_url: referral.video_url ?? null,
          thumbnail_url: referral.thumbnail_url ?? null,
          ctwa_clid: referral.ctwa_clid ?? null,
          welcome_message: referral.welcome_message?.text ?? null,
        }
      : null,
    forwarded: context?.forwarded === true || frequently,
    frequently_forwarded: frequently,
    media_sha256: media?.sha256 ?? null,
    media_voice: type === "audio" && media ? media.voice === true : null,
  };
}

/**
 * Issue 28: the one-click card answer to a Pix order (`type: interactive`, `interactive.type: payment_method`), else
 * null. Payload version 2 only, and only on that answer (D11 as the lead replaced it: `type` stays `interactive`).
 */
export function receivedPaymentMethod(message: MetaInboundItem): ReceivedPaymentMethod | null {
  const interactive = message.type === "interactive" ? message.interactive : undefined;
  const answer = interactive?.payment_method;
  if (interactive?.type !== "payment_method" || !answer) return null;
  const timestamp = answer.payment_timestamp;
  return {
    payment_method: answer.payment_method,
    reference_id: answer.reference_id,
    payment_timestamp: timestamp === undefined ? null : Number(timestamp),
    last_four_digits: answer.last_four_digits ?? null,
    credential_id: answer.credential_id ?? null,
  };
}

function interactiveReply(interactive: MetaInboundItem["interactive"]): ReceivedMembers["interactive"] {
  if (interactive?.type === "button_reply" && interactive.button_reply?.id !== undefined)
    return {
      type: "button_reply",
      id: interactive.button_reply.id,
      title: interactive.button_reply.title ?? null,
      description: null,
    };
  if (interactive?.type === "list_reply" && interactive.list_reply?.id !== undefined)
    return {
      type: "list_reply",
      id: interactive.list_reply.id,
      title: interactive.list_reply.title ?? null,
      description: interactive.list_reply.description ?? null,
    };
  return null;
}

type ReceivedContact = NonNullable<ReceivedMembers["contacts"]>[number];

/** A card as Meta sent it, normalised: every list present (maybe empty), every missing text null. */
function receivedContact(card: MetaContactCard): ReceivedContact {
  return {
    formatted_name: card.name?.formatted_name ?? null,
    first_name: card.name?.first_name ?? null,
    last_name: card.name?.last_name ?? null,
    birthday: card.birthday ?? null,
    phones: (card.phones ?? []).map((p) => ({ phone: p.phone ?? null, wa_id: p.wa_id ?? null, type: p.type ?? null })),
    emails: (card.emails ?? []).map((e) => ({ email: e.email ?? null, type: e.type ?? null })),
    urls: (card.urls ?? []).map((u) => ({ url: u.url ?? null, type: u.type ?? null })),
    addresses: (card.addresses ?? []).map((a) => ({
      street: a.street ?? null,
      city: a.city ?? null,
      state: a.state ?? null,
      zip: a.zip ?? null,
      country: a.country ?? null,
      country_code: a.country_code ?? null,
      type: a.type ?? null,
    })),
    organization: card.org
      ? { company: card.org.company ?? null, department: card.org.department ?? null, title: card.org.title ?? null }
      : null,
    origin: card.origin ?? null,
  };
}

/**
 * `inbound_messages.details`: the version-2 members but the media's two (columns of their own), or null when none
 * applies (the panel reads it; retention clears it with the contact's content).
 */
function storedDetails(members: ReceivedMembers): string | null {
  const { media_sha256: _sha256, media_voice: _voice, ...details } = members;
  return Object.values(details).some((value) => value !== null && value !== false) ? JSON.stringify(details) : null;
}

// One statement: store the message once (provider retries are duplicates), extend the contact's window (the
// greatest times win, spec 6.3 rule 1; the newest message's field says who holds the thread, conversations/thread.ts), record a received media as the account's (GET /public/v1/media/{media_id};
// Meta keeps it 7 days) and draw one delivery id per subscribed integration, with the body version it gets — all
// only when the message is new.
const STORE_INBOUND = `
WITH stored AS (
  INSERT INTO inbound_messages (account_id, phone_number_id, from_number, wamid, type, text, media_id, media_mime, media_filename,
    reply_to_wamid, contact_name, occurred_at, window_expires_at, contact_key, from_user_id, from_parent_user_id,
    from_username, media_sha256, media_voice, details, payment, standby)
  VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20::jsonb,
    $21::jsonb, $22)
  ON CONFLICT (wamid) DO NOTHING
  RETURNING id
), window_extended AS (
  INSERT INTO contact_windows (phone_number_id, contact, last_inbound_at, expires_at, last_inbound_standby,
    last_inbound_received_at)
  SELECT $2, $14, $12, $13, $22, $23 FROM stored
  ON CONFLICT (phone_number_id, contact) DO UPDATE SET
    last_inbound_standby = CASE WHEN EXCLUDED.last_inbound_at >= contact_windows.last_inbound_at
      THEN EXCLUDED.last_inbound_standby ELSE contact_windows.last_inbound_standby END,
    last_inbound_received_at = CASE WHEN EXCLUDED.last_inbound_at >= contact_windows.last_inbound_at
      THEN EXCLUDED.last_inbound_received_at ELSE contact_windows.last_inbound_received_at END,
    last_inbound_at = GREATEST(contact_windows.last_inbound_at, EXCLUDED.last_inbound_at),
    expires_at = GREATEST(contact_windows.expires_at, EXCLUDED.expires_at)
), media_recorded AS (
  INSERT INTO account_media (account_id, phone_number_id, media_id, origin, type, mime_type, sha256, filename, voice,
    expires_at)
  SELECT $1::uuid, $2, $7, 'received', $5, $8, $18, $9, $19, $12::timestamptz + interval '7 days'
  FROM stored WHERE $7::text IS NOT NULL
  ON CONFLICT (account_id, media_id) DO NOTHING
), reopened AS (
  -- Issue 39: a customer writing to a conversation the inbox closed reopens it.
  UPDATE conversations SET status = 'open', status_changed_at = $23
  WHERE account_id = $1::uuid AND contact_key = $14 AND phone_number_id = $2 AND status = 'closed'
    AND EXISTS (SELECT 1 FROM stored)
  RETURNING 1
)
SELECT s.id AS integration_id, s.payload_version,
  CASE WHEN s.id IS NOT NULL THEN nextval(pg_get_serial_sequence('deliveries', 'id'))::text END AS id,
  (SELECT count(*) FROM reopened)::int AS reopened,
  (SELECT c.phone FROM contacts c WHERE c.account_id = $1::uuid AND c.key = $14) AS contact_phone,
  gateway_conversation_handler($1::uuid, $2, $14) AS handler
FROM stored LEFT JOIN LATERAL (SELECT id, created_at, payload_version FROM integrations
  WHERE account_id = $1::uuid AND active AND 'message.received' = ANY(events)) AS s ON true
ORDER BY s.created_at, s.id`;

/**
 * Store an inbound message and extend its contact's window (keyed by the contact, whichever identifier the
 * integrator replies to); returns the `message.received` deliveries to insert, and whether the message reopened a
 * conversation the inbox had closed (the caller announces it: conversations sit beside events, not below).
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
): Promise<{ deliveries: PendingDelivery[]; reopened: boolean }> {
  const { occurredAt, data } = toReceivedData(input.inbound, input.phoneNumberId, input.receivedAt);
  const members = receivedMembers(input.inbound.message);
  const payment = receivedPaymentMethod(input.inbound.message);
  const { rows } = await sql.query<{
    integration_id: string | null;
    payload_version: number | null;
    id: string | null;
    reopened: number;
    contact_phone: string | null;
    handler: "bot" | "human" | null;
  }>({
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
      members.media_sha256,
      members.media_voice,
      storedDetails(members),
      payment === null ? null : JSON.stringify(payment),
      input.inbound.standby === true,
      input.receivedAt ?? new Date(),
    ],
  });
  const deliveries = rows.flatMap((row): PendingDelivery[] =>
    row.id === null || row.integration_id === null
      ? []
      : [
          {
            id: row.id,
            accountId: input.accountId,
            integrationId: row.integration_id,
            event: "message.received",
            orderingKey: contactOrderingKey(input.contactKey),
            // Version 1 (the default) gets the contract's bytes; the outbox keeps each body, so retries keep their version.
            data:
              row.payload_version === 2
                ? {
                    ...data,
                    ...members,
                    contact_phone: row.contact_phone,
                    standby: input.inbound.standby === true,
                    handler: row.handler ?? "bot",
                    ...(payment ? { payment_method: payment } : {}),
                  }
                : data,
          },
        ],
  );
  return { deliveries, reopened: (rows[0]?.reopened ?? 0) > 0 };
}
