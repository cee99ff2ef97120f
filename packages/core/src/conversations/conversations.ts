import type {
  ConversationAssigneeView,
  ConversationHandlerView,
  ConversationStatus,
  ConversationThreadView,
  OrderStatus,
  PaymentStatus,
} from "@gw/contracts";
import type { Db, Sql } from "@gw/db";
import { ApiError } from "@gw/errors";
import { contactKeyOf, contactsByKey } from "../contacts/contacts.ts";
import { isBsuidIdentifier } from "../contacts/recipient.ts";
import { normalizePhone } from "../phones/normalize.ts";
import { getWindow, windowView } from "../windows/windows.ts";
import { inboundDetailsOf, outboundContentOf, type InboundDetailsView, type OutboundContentView } from "./content.ts";
import { readThread, threadView } from "./thread.ts";
import { conversationState } from "./updated.ts";

export type { InboundDetailsView, OutboundContentView, SharedContactView } from "./content.ts";

/**
 * The panel's conversations: the contacts who wrote to the account's numbers, each with its messages (the
 * contact's, and the account's sends to that contact on that number) and its 24 h window. Read-only views over
 * `inbound_messages`, `messages`, `contact_windows` and `contacts`; a conversation is keyed by its contact's key
 * (contacts/), so a user's messages stay one conversation whichever identifier (phone, BSUID) they came with, and
 * across a change of number or of BSUID.
 */

export interface ConversationWindow {
  open: boolean;
  expires_at: string | null;
  last_inbound_at: string | null;
}

/** Who the contact is, as Meta told it: a phone, a BSUID, a username (display only). */
export interface ConversationContact {
  /** Digits with the country code; null when Meta never shared it (a user with a username). */
  phone: string | null;
  bsuid: string | null;
  username: string | null;
  /** What a send to this contact names: its phone when known, else its BSUID. */
  send_to: string;
}

export interface ConversationView {
  phone_number_id: string;
  /** The contact's key: what a conversation's address names. */
  contact: string;
  who: ConversationContact;
  /** The latest name the contact's WhatsApp profile carried. */
  contact_name: string | null;
  inbound_count: number;
  last_inbound_at: string;
  /** The newest message either way. */
  last_message: {
    direction: "inbound" | "outbound";
    /** Inbound: Meta's type (text, image, ...); outbound: the send's kind (text, template, interactive, ...). */
    type: string;
    text: string | null;
    template_name: string | null;
    /** Outbound only: sent, delivered, read or failed. */
    status: string | null;
    at: string;
  } | null;
  window: ConversationWindow;
}

export interface ConversationMessageView {
  direction: "inbound" | "outbound";
  /** Inbound: the id openInboundMedia takes; outbound: the message id of the public API. */
  id: string;
  wamid: string;
  type: string;
  /** Inbound only (the gateway does not keep the text of sends); null once retention cleared it. */
  text: string | null;
  /**
   * Inbound media: what it is; open it with openInboundMedia (never a link of its own). `sha256`: the file's SHA-256
   * as Meta gave it (hex); `voice`: an audio recorded in WhatsApp.
   */
  media: { mime_type: string | null; filename: string | null; sha256: string | null; voice: boolean } | null;
  /** Outbound: what the send carried beyond its kind (buttons, list, media, reaction, location); null for text. */
  content: OutboundContentView | null;
  /** Inbound: the option tapped, location, contact cards, reaction, ad, forwarded flags; null when none. */
  details: InboundDetailsView | null;
  reply_to_wamid: string | null;
  template_name: string | null;
  /** Outbound: sent, delivered, read or failed. */
  status: string | null;
  error_code: number | null;
  error_reason: string | null;
  /** Inbound: when the contact sent it; outbound: when the gateway sent it. */
  at: string;
  /** Inbound: when the business marked it read at Meta (API or panel; or a later message was); null while unread. */
  read_at: string | null;
  /** Outbound message of a Pix order (its order_details or an order_status): the order's current status; else null. */
  order: { reference_id: string; order_status: OrderStatus; payment_status: PaymentStatus } | null;
  /** Inbound: it came on Meta's `standby` field, while another app (Meta's Business AI agent) held the conversation. */
  standby: boolean;
}

const MAX_LIMIT = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Who a contact key is: its row in `contacts`, or (a contact of before contacts existed) its key, a phone's digits. */
function contactOf(
  key: string,
  row: { phone: string | null; bsuid: string | null; username: string | null },
): ConversationContact {
  const legacyPhone = row.phone === null && row.bsuid === null && /^\d+$/.test(key) ? key : null;
  const phone = row.phone ?? legacyPhone;
  const bsuid = row.bsuid ?? (isBsuidIdentifier(key) ? key : null);
  return { phone, bsuid, username: row.username, send_to: phone ?? bsuid ?? key };
}

function clampLimit(limit: number): number {
  return Math.max(1, Math.min(MAX_LIMIT, Math.trunc(limit) || 1));
}

function checkAccount(accountId: string, message: string): void {
  if (!UUID.test(accountId)) throw new ApiError("not_found", { message });
}

/** Cursors are opaque to callers: base64url of the sort key of the last item of the page. */
function encodeCursor(parts: string[]): string {
  return Buffer.from(JSON.stringify(parts), "utf8").toString("base64url");
}

/** A page cursor's `size` parts, the ones at `instants` (default the first) being timestamps; else 400. */
function decodeCursor(
  cursor: string | null | undefined,
  size: number,
  instants: readonly number[] = [0],
): string[] | null {
  if (cursor === undefined || cursor === null || cursor === "") return null;
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parts = null;
  }
  if (
    !Array.isArray(parts) ||
    parts.length !== size ||
    !parts.every((p) => typeof p === "string") ||
    instants.some((at) => Number.isNaN(Date.parse(String(parts[at]))))
  )
    throw new ApiError("bad_request", { message: "O cursor de paginação das conversas é inválido." });
  return parts;
}

/** `%`, `_` and `\` match themselves in a LIKE pattern. */
function likeEscaped(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Outbound `accepted` (Meta took the send, no status yet) is shown as the public API shows it: sent. */
function publicStatus(status: string | null): string | null {
  return status === "accepted" ? "sent" : status;
}

interface ConversationRow {
  phone_number_id: string;
  contact: string;
  phone: string | null;
  bsuid: string | null;
  username: string | null;
  contact_name: string | null;
  inbound_count: number;
  last_inbound_at: Date;
  expires_at: Date | null;
  window_last_inbound_at: Date | null;
  last_direction: "inbound" | "outbound" | null;
  last_type: string | null;
  last_text: string | null;
  last_template_name: string | null;
  last_status: string | null;
  last_at: Date | null;
}

// Conversations ordered by the contact's latest message (a business reply does not move one up), paged by that
// key; the last message either way and the window are read for the page only.
const LIST_CONVERSATIONS = `
WITH conversations AS (
  SELECT phone_number_id, contact_key AS contact, max(occurred_at) AS last_inbound_at,
    count(*)::int AS inbound_count,
    (array_agg(contact_name ORDER BY occurred_at DESC) FILTER (WHERE contact_name IS NOT NULL))[1] AS contact_name
  FROM inbound_messages
  WHERE account_id = $1::uuid
  GROUP BY 1, 2
), page AS (
  SELECT c.*, k.phone, k.bsuid, k.username FROM conversations c
  LEFT JOIN contacts k ON k.account_id = $1::uuid AND k.key = c.contact
  WHERE ($2::timestamptz IS NULL OR (c.last_inbound_at, c.phone_number_id, c.contact) < ($2::timestamptz, $3::text, $4::text))
    AND ($6::text IS NULL
      OR ($5::text <> '' AND COALESCE(k.phone, c.contact) LIKE '%' || $5::text || '%')
      OR c.contact_name ILIKE '%' || $6::text || '%' OR k.username ILIKE '%' || $6::text || '%'
      OR k.bsuid ILIKE '%' || $6::text || '%')
  ORDER BY c.last_inbound_at DESC, c.phone_number_id DESC, c.contact DESC
  LIMIT $7::int
)
SELECT p.*, w.expires_at, w.last_inbound_at AS window_last_inbound_at, l.direction AS last_direction,
  l.type AS last_type, l.text AS last_text, l.template_name AS last_template_name, l.status AS last_status,
  l.at AS last_at
FROM page p
LEFT JOIN contact_windows w ON w.phone_number_id = p.phone_number_id AND w.contact = p.contact
LEFT JOIN LATERAL (
  SELECT * FROM (
    (SELECT 'inbound' AS direction, i.type, i.text, NULL::text AS template_name, NULL::text AS status,
        i.occurred_at AS at
      FROM inbound_messages i
      WHERE i.account_id = $1::uuid AND i.phone_number_id = p.phone_number_id AND i.contact_key = p.contact
      ORDER BY i.occurred_at DESC LIMIT 1)
    UNION ALL
    (SELECT 'outbound', o.kind, NULL, o.template_name, o.status, o.created_at
      FROM messages o
      WHERE o.account_id = $1::uuid AND o.phone_number_id = p.phone_number_id
        AND COALESCE(o.contact_key, o."to") = p.contact
      ORDER BY o.created_at DESC LIMIT 1)
  ) both_ways ORDER BY at DESC LIMIT 1
) l ON true
ORDER BY p.last_inbound_at DESC, p.phone_number_id DESC, p.contact DESC`;

/**
 * The contacts who wrote to the account's numbers, most recent first, with their last message and 24 h window.
 * `search` matches digits of the contact's number, or part of its name, username or BSUID; `cursor` is the
 * `next_cursor` of the page before.
 */
export async function listConversations(
  deps: { db: Db },
  input: {
    accountId: string;
    cursor?: string | null | undefined;
    limit: number;
    search?: string | null | undefined;
    now?: Date;
  },
): Promise<{ conversations: ConversationView[]; next_cursor: string | null }> {
  checkAccount(input.accountId, "A conta não foi encontrada.");
  const after = decodeCursor(input.cursor, 3);
  const limit = clampLimit(input.limit);
  const now = input.now ?? new Date();
  const search = input.search?.trim() ?? "";
  const digits = search.replace(/\D/g, "");
  const { rows } = await deps.db.sql.query<ConversationRow>({
    name: "list-conversations",
    text: LIST_CONVERSATIONS,
    values: [
      input.accountId,
      after?.[0] ?? null,
      after?.[1] ?? null,
      after?.[2] ?? null,
      // Digits in the search match the number; the search as typed matches the name.
      likeEscaped(digits),
      search === "" ? null : likeEscaped(search),
      limit + 1,
    ],
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    conversations: page.map((row) => ({
      phone_number_id: row.phone_number_id,
      contact: row.contact,
      who: contactOf(row.contact, row),
      contact_name: row.contact_name,
      inbound_count: row.inbound_count,
      last_inbound_at: row.last_inbound_at.toISOString(),
      last_message:
        row.last_direction && row.last_at
          ? {
              direction: row.last_direction,
              type: row.last_type ?? "unsupported",
              text: row.last_text,
              template_name: row.last_template_name,
              status: publicStatus(row.last_status),
              at: row.last_at.toISOString(),
            }
          : null,
      window: {
        open: row.expires_at !== null && row.expires_at.getTime() > now.getTime(),
        expires_at: row.expires_at?.toISOString() ?? null,
        last_inbound_at: row.window_last_inbound_at?.toISOString() ?? null,
      },
    })),
    next_cursor:
      rows.length > limit && last
        ? encodeCursor([last.last_inbound_at.toISOString(), last.phone_number_id, last.contact])
        : null,
  };
}

/**
 * The contact key a conversation's address names: a contact's key, or any of its identifiers (a phone in any
 * formatting, a BSUID). Null when it names nothing that could be one.
 */
export async function conversationContactKey(
  sql: Sql,
  input: { accountId: string; given: string },
): Promise<string | null> {
  const given = input.given.trim();
  const identifier = isBsuidIdentifier(given) || given.startsWith("contact:") ? given : normalizePhone(given).digits;
  if (identifier === "") return null;
  return contactKeyOf(sql, { accountId: input.accountId, identifier });
}

/**
 * Who the panel answers in a conversation: the contact's key (as Conversas names it) and the identifier a send goes
 * to (its phone, else its BSUID); null when the account knows no such contact.
 */
export async function conversationRecipient(
  sql: Sql,
  input: { accountId: string; given: string },
): Promise<{ contactKey: string; sendTo: string } | null> {
  if (!UUID.test(input.accountId)) return null;
  const contactKey = await conversationContactKey(sql, input);
  if (contactKey === null) return null;
  const known = await contactsByKey(sql, { accountId: input.accountId, keys: [contactKey] });
  const who = contactOf(contactKey, known.get(contactKey) ?? { phone: null, bsuid: null, username: null });
  return { contactKey, sendTo: who.send_to };
}

interface MessageRow {
  direction: "inbound" | "outbound";
  id: string;
  wamid: string;
  type: string;
  text: string | null;
  has_media: boolean;
  media_mime: string | null;
  media_filename: string | null;
  media_sha256: string | null;
  media_voice: boolean | null;
  content: unknown;
  details: unknown;
  reply_to_wamid: string | null;
  template_name: string | null;
  status: string | null;
  error_code: number | null;
  error_reason: string | null;
  at: Date;
  /** `at` truncated to the second: the order's first key (Meta's whole seconds against the sends' milliseconds). */
  at_s: Date;
  seq: Date;
  read_at: Date | null;
  order_reference_id: string | null;
  order_status: OrderStatus | null;
  order_payment_status: PaymentStatus | null;
  standby: boolean;
}

const LIST_MESSAGES = `
SELECT * FROM (
  SELECT 'inbound' AS direction, i.id::text AS id, i.wamid, i.type, i.text, i.media_id IS NOT NULL AS has_media,
    i.media_mime, i.media_filename, i.reply_to_wamid, NULL::text AS template_name, NULL::text AS status,
    NULL::int AS error_code, NULL::text AS error_reason, i.occurred_at AS at,
    date_trunc('second', i.occurred_at) AS at_s, i.created_at AS seq, i.read_at,
    i.media_sha256, i.media_voice, NULL::jsonb AS content, i.details, NULL::text AS order_reference_id,
    NULL::text AS order_status, NULL::text AS order_payment_status, i.standby
  FROM inbound_messages i
  WHERE i.account_id = $1::uuid AND i.phone_number_id = $2 AND i.contact_key = $3
  UNION ALL
  SELECT 'outbound', o.id::text, o.wamid, o.kind, NULL, false, NULL, NULL, NULL, o.template_name, o.status,
    o.error_code, o.error_reason, o.created_at, date_trunc('second', o.created_at), o.created_at,
    NULL::timestamptz, NULL, NULL, o.content, NULL,
    od.reference_id, od.order_status, od.payment_status, false
  FROM messages o
  LEFT JOIN order_messages om ON om.wamid = o.wamid
  LEFT JOIN orders od ON od.id = om.order_id AND od.account_id = o.account_id
  WHERE o.account_id = $1::uuid AND o.phone_number_id = $2 AND COALESCE(o.contact_key, o."to") = $3
) both_ways
WHERE $4::timestamptz IS NULL OR (at_s, seq, direction, id) < ($4::timestamptz, $5::timestamptz, $6::text, $7::text)
-- Meta's timestamps are whole seconds, the gateway's sends have milliseconds: within one second, the order the
-- gateway stored them in (ids are random uuids), so a tap Meta stamps 10:00:00 stays below the list sent at
-- 10:00:00.700 that it answers.
ORDER BY at_s DESC, seq DESC, direction DESC, id DESC
LIMIT $8`;

/**
 * One conversation: the contact's messages to `phoneNumberId` and the account's sends to the contact from it,
 * interleaved by time, newest first (`cursor` goes back in time), with the contact's name and 24 h window. A number
 * of another account is `not_found`.
 */
export async function listConversationMessages(
  deps: { db: Db },
  input: {
    accountId: string;
    phoneNumberId: string;
    contact: string;
    cursor?: string | null | undefined;
    limit: number;
    now?: Date;
  },
): Promise<{
  phone_number_id: string;
  contact: string;
  who: ConversationContact;
  contact_name: string | null;
  window: ConversationWindow;
  /** Who holds the conversation under Meta's Conversation Routing (thread.ts). */
  thread: ConversationThreadView;
  /** Who answers the customer on the business's side: the bot or a person (handler.ts, issue 39). */
  handler: ConversationHandlerView;
  /** The inbox's state (inbox.ts, issue 39): open or closed, and the panel user it is assigned to. */
  status: ConversationStatus;
  assignee: ConversationAssigneeView | null;
  messages: ConversationMessageView[];
  next_cursor: string | null;
}> {
  const notFound = "A conversa não foi encontrada nesta conta.";
  checkAccount(input.accountId, notFound);
  const contact = await conversationContactKey(deps.db.sql, { accountId: input.accountId, given: input.contact });
  if (contact === null) throw new ApiError("not_found", { message: notFound });
  const owned = await deps.db.sql.query({
    name: "conversation-number-of-account",
    text: `SELECT 1 FROM business_numbers WHERE account_id = $1::uuid AND phone_number_id = $2`,
    values: [input.accountId, input.phoneNumberId],
  });
  if (owned.rowCount === 0) throw new ApiError("not_found", { message: notFound });

  const before = decodeCursor(input.cursor, 4, [0, 1]);
  const limit = clampLimit(input.limit);
  const [{ rows }, window, name, known, thread, state] = await Promise.all([
    deps.db.sql.query<MessageRow>({
      name: "list-conversation-messages",
      text: LIST_MESSAGES,
      values: [
        input.accountId,
        input.phoneNumberId,
        contact,
        before?.[0] ?? null,
        before?.[1] ?? null,
        before?.[2] ?? null,
        before?.[3] ?? null,
        limit + 1,
      ],
    }),
    getWindow(deps, { phoneNumberId: input.phoneNumberId, contact, now: input.now }),
    deps.db.sql.query<{ contact_name: string }>({
      name: "conversation-contact-name",
      text: `SELECT contact_name FROM inbound_messages
        WHERE account_id = $1::uuid AND phone_number_id = $2 AND contact_key = $3 AND contact_name IS NOT NULL
        ORDER BY occurred_at DESC LIMIT 1`,
      values: [input.accountId, input.phoneNumberId, contact],
    }),
    contactsByKey(deps.db.sql, { accountId: input.accountId, keys: [contact] }),
    readThread(deps.db.sql, { accountId: input.accountId, phoneNumberId: input.phoneNumberId, contactKey: contact }),
    conversationState(deps.db.sql, {
      accountId: input.accountId,
      phoneNumberId: input.phoneNumberId,
      contactKey: contact,
    }),
  ]);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    phone_number_id: input.phoneNumberId,
    contact,
    who: contactOf(contact, known.get(contact) ?? { phone: null, bsuid: null, username: null }),
    contact_name: name.rows[0]?.contact_name ?? null,
    window: windowView(window),
    thread: threadView(thread),
    handler: state.handler,
    status: state.status,
    assignee: state.assignee,
    messages: page.map((row) => ({
      direction: row.direction,
      id: row.id,
      wamid: row.wamid,
      type: row.type,
      text: row.text,
      media: row.has_media
        ? {
            mime_type: row.media_mime,
            filename: row.media_filename,
            sha256: row.media_sha256,
            voice: row.media_voice === true,
          }
        : null,
      content: row.direction === "outbound" ? outboundContentOf(row.content) : null,
      details: row.direction === "inbound" ? inboundDetailsOf(row.details) : null,
      reply_to_wamid: row.reply_to_wamid,
      template_name: row.template_name,
      status: publicStatus(row.status),
      error_code: row.error_code,
      error_reason: row.error_reason,
      at: row.at.toISOString(),
      read_at: row.read_at?.toISOString() ?? null,
      order:
        row.order_reference_id !== null && row.order_status !== null && row.order_payment_status !== null
          ? {
              reference_id: row.order_reference_id,
              order_status: row.order_status,
              payment_status: row.order_payment_status,
            }
          : null,
      standby: row.standby,
    })),
    next_cursor:
      rows.length > limit && last
        ? encodeCursor([last.at_s.toISOString(), last.seq.toISOString(), last.direction, last.id])
        : null,
  };
}
