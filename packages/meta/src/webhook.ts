import { z } from "zod";
import { replaceUnstorable, UNSTORABLE_CHARACTER } from "@gw/contracts";

/**
 * Meta's WhatsApp Business webhook (`object: whatsapp_business_account`), read item by item: a malformed
 * status or message is set aside (quarantined) with the reason, and every well-formed item of the same
 * payload is still applied. Only the fields the gateway reads are declared; unknown fields pass through.
 */

/**
 * Ids, codes and numbers: a NUL or a lone surrogate cannot be stored or looked up (PostgreSQL refuses it), so the
 * item that carries one is quarantined rather than failing the whole payload.
 */
const storable = () =>
  z.string().refine((value) => !UNSTORABLE_CHARACTER.test(value), "contém U+0000 ou Unicode inválido");

/** Human texts are kept: NUL dropped and a lone surrogate replaced by U+FFFD; Meta's texts never need either. */
const text = z.string().transform((value) => replaceUnstorable(value.replaceAll("\u0000", ""), "\ufffd"));
const id = storable().min(1).max(512);

/**
 * A phone Meta may withhold (`from`, `wa_id`, `recipient_id`...): absent since 2026 when the user has a username and
 * the phone may not be shared; an empty string (Meta's 2025 draft) is read as absent too.
 */
const conditionalPhone = z.preprocess((value) => (value === "" ? undefined : value), storable().max(64).optional());

/**
 * A business-scoped user id (BSUID, `BR.1502576394655843`) or a parent one (`BR.ENT.…`), as Meta sends it: kept
 * whole, never altered. The format is checked where the gateway takes one from an integrator (@gw/contracts).
 */
const bsuid = z.preprocess((value) => (value === "" ? undefined : value), storable().min(1).max(160).optional());

/** A pricing field Meta may extend (new categories appeared in 2026): any short string, kept verbatim. */
const pricingValue = storable().min(1).max(64);

/** `statuses[].pricing` (per-message pricing since July 2025); `billable` is read but never decides anything. */
const pricing = z.object({
  pricing_model: pricingValue.optional(),
  type: pricingValue.optional(),
  category: pricingValue.optional(),
  billable: z.boolean().optional(),
});
export type MetaPricing = z.infer<typeof pricing>;

const metaError = z.object({
  code: z.number().int().optional(),
  title: text.optional(),
  message: text.optional(),
  error_data: z.object({ details: text.optional() }).optional(),
});

export const MetaStatusItem = z.object({
  id,
  status: storable().min(1).max(64),
  timestamp: storable().max(32).optional(),
  /** The phone, when the message was sent to it (or may be shared); omitted for a BSUID send otherwise. */
  recipient_id: conditionalPhone,
  /** The recipient's BSUID: always, except on a `failed` status of a message sent to a phone. */
  recipient_user_id: bsuid,
  recipient_parent_user_id: bsuid,
  errors: z.array(metaError).optional(),
  pricing: pricing.optional(),
  /** What the send put in `biz_opaque_callback_data`, echoed; a value we could not store never costs the status. */
  biz_opaque_callback_data: storable().max(512).optional().catch(undefined),
});
export type MetaStatusItem = z.infer<typeof MetaStatusItem>;

/**
 * A status as read, with the business number its change's `metadata.phone_number_id` names (null when the metadata
 * is missing or unreadable: a status is matched by wamid and is applied without it). Not a field of Meta's status.
 */
export type MetaStatus = MetaStatusItem & { phoneNumberId: string | null };

// The members read since issue 27 (option tapped, location, contact cards, reaction, ad referral, forwarded flags,
// media checksum and voice): each is read leniently. A malformed one is dropped (read as absent), never the reason a
// message is quarantined: an item forwarded before they were read is forwarded still. Texts are capped (by code
// points, never halving a character) rather than refused.

/** `schema`, or absent when the value is missing or malformed. */
function lenient<T extends z.ZodType>(schema: T) {
  return schema.optional().catch(undefined);
}

/** `value` cut to `max` code points (a JavaScript length ≤ max is already within it). */
function capCodePoints(value: string, max: number): string {
  return value.length <= max ? value : Array.from(value).slice(0, max).join("");
}

/** A human text, cut to `max` code points. */
const capped = (max: number) => text.transform((value) => capCodePoints(value, max));

/** The items of a list that read as `item` (the others dropped), at most `max` of them. */
function lenientList<T extends z.ZodType>(item: T, max: number) {
  return lenient(
    z.array(z.unknown()).transform((items) =>
      items
        .flatMap((value) => {
          const parsed = item.safeParse(value);
          return parsed.success ? [parsed.data] : [];
        })
        .slice(0, max),
    ),
  );
}

/** Degrees as Meta sends them (JSON numbers; numeric strings accepted too), within ±`limit`. */
const coordinate = (limit: number) =>
  z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\s*[-+]?\d{1,3}(\.\d{1,20})?\s*$/)
        .transform(Number),
    ])
    .refine((degrees) => Number.isFinite(degrees) && Math.abs(degrees) <= limit, `fora de ±${limit}`);

/**
 * A file's SHA-256 as lowercase hex. Meta's webhooks carry it in base64 (its examples; hex accepted too, the encoding
 * is unverified); anything that is not 32 bytes in either form is not a checksum.
 */
function sha256Hex(value: string): string | null {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return value.toLowerCase();
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) return null;
  const bytes = Buffer.from(value, "base64");
  // Canonical base64 only: the last character's unused bits must be zero.
  const canonical = bytes.toString("base64url") === value.replace(/=$/, "").replaceAll("+", "-").replaceAll("/", "_");
  return bytes.length === 32 && canonical ? bytes.toString("hex") : null;
}

const checksum = z.string().transform((value, ctx) => {
  const hex = sha256Hex(value);
  if (hex === null) ctx.addIssue({ code: "custom", message: "não é um SHA-256 em base64 ou hex" });
  return hex ?? "";
});

const label = lenient(capped(256));
const longText = lenient(capped(1024));
const link = lenient(capped(2048));

/** A shared contact card (`messages[].contacts[]`), as Meta sends it: every property may be missing. */
const contactCard = z.object({
  name: lenient(z.object({ formatted_name: label, first_name: label, last_name: label })),
  birthday: lenient(capped(64)),
  phones: lenientList(z.object({ phone: label, wa_id: label, type: label }), 20),
  emails: lenientList(z.object({ email: label, type: label }), 20),
  urls: lenientList(z.object({ url: link, type: label }), 20),
  addresses: lenientList(
    z.object({
      street: longText,
      city: label,
      state: label,
      zip: label,
      country: label,
      country_code: label,
      type: label,
    }),
    20,
  ),
  org: lenient(z.object({ company: label, department: label, title: label })),
  /**
   * Why it was shared (meta-late-2026 §3): `contact_request`, the user's own card, shared when the business asked
   * (`request_contact_info`); `other`, any card shared unprompted.
   */
  origin: lenient(capped(32)),
});
export type MetaContactCard = z.infer<typeof contactCard>;

/** Click-to-WhatsApp ad or post the conversation started from (`messages[].referral`). */
const referral = z.object({
  source_url: link,
  source_id: label,
  source_type: label,
  body: longText,
  headline: label,
  media_type: label,
  image_url: link,
  video_url: link,
  thumbnail_url: link,
  ctwa_clid: lenient(capped(512)),
  welcome_message: lenient(z.object({ text: longText })),
});

const media = z.object({
  id: storable().max(512).optional(),
  mime_type: storable().max(255).optional(),
  caption: text.optional(),
  filename: text.optional(),
  /** Lowercase hex (see sha256Hex); absent when Meta sent none or something else. */
  sha256: lenient(checksum),
  /** Audio: recorded in WhatsApp (a voice note). */
  voice: lenient(z.boolean()),
  /** Sticker: animated. */
  animated: lenient(z.boolean()),
  url: link,
});

export const MetaInboundItem = z.object({
  /** The sender's phone; withheld (absent) for a username user the business has not talked to (see readSender). */
  from: conditionalPhone,
  /** The sender's BSUID, on every message since April 2026. */
  from_user_id: bsuid,
  from_parent_user_id: bsuid,
  id,
  timestamp: storable().max(32),
  type: storable().min(1).max(64),
  text: z.object({ body: text.optional() }).optional(),
  image: media.optional(),
  audio: media.optional(),
  video: media.optional(),
  document: media.optional(),
  sticker: media.optional(),
  button: z.object({ text: text.optional(), payload: text.optional() }).optional(),
  interactive: z
    .object({
      type: storable().optional(),
      button_reply: z.object({ id: storable().optional(), title: text.optional() }).optional(),
      list_reply: z
        .object({ id: storable().optional(), title: text.optional(), description: text.optional() })
        .optional(),
      /** Issue 28: the one-click card answer to a Pix order (meta-2026 §6.5); `from_logical_id` is not read. */
      payment_method: lenient(
        z.object({
          payment_method: storable().min(1).max(64),
          reference_id: storable().min(1).max(256),
          payment_timestamp: lenient(
            z.union([
              z
                .int()
                .min(0)
                .max(2 ** 40),
              z.string().regex(/^\d{1,12}$/),
            ]),
          ),
          last_four_digits: lenient(storable().max(16)),
          credential_id: lenient(storable().max(512)),
        }),
      ),
    })
    .optional(),
  context: z
    .object({
      id: storable().max(512).optional(),
      from: storable().optional(),
      /** Forwarded (up to 5 hops), or forwarded more than 5 times. */
      forwarded: lenient(z.boolean()),
      frequently_forwarded: lenient(z.boolean()),
    })
    .optional(),
  location: lenient(
    z.object({ latitude: coordinate(90), longitude: coordinate(180), name: label, address: longText, url: link }),
  ),
  /** Shared contact cards (up to 257 per message). */
  contacts: lenientList(contactCard, 257),
  /** A reaction to a business message; without `emoji` (or with `""`), the reaction was removed. */
  reaction: lenient(z.object({ message_id: storable().min(1).max(512), emoji: capped(32).optional() })),
  referral: lenient(referral),
  /** `type: system`: the user changed number (`user_changed_number`) or BSUID (`user_changed_user_id`). */
  system: z
    .object({
      type: storable().max(64).optional(),
      body: text.optional(),
      wa_id: conditionalPhone,
      user_id: bsuid,
      parent_user_id: bsuid,
      /** Since August 2026 (meta-late-2026 §4), on both changes: the BSUIDs before it. */
      previous_user_id: bsuid,
      previous_parent_user_id: bsuid,
    })
    .optional(),
});
export type MetaInboundItem = z.infer<typeof MetaInboundItem>;

export const MetaContact = z.object({
  wa_id: conditionalPhone,
  user_id: bsuid,
  parent_user_id: bsuid,
  /** `username` is display data: it can change or disappear; the BSUID identifies. */
  profile: z.object({ name: text.optional(), username: text.optional() }).optional(),
});
export type MetaContact = z.infer<typeof MetaContact>;

const metadata = z.object({ phone_number_id: storable().min(1).max(64), display_phone_number: storable().optional() });

/** Meta sends template ids as JSON numbers; kept as decimal strings (ids past 2^53 arrive rounded by JSON.parse). */
const templateId = z
  // Not z.int(): zod's int is the safe range, and an id past it must still be read.
  .union([z.number().nonnegative().refine(Number.isInteger, "deve ser inteiro"), storable().regex(/^\d{1,32}$/)])
  .transform((value) => (typeof value === "number" ? BigInt(value).toString() : value));
const qualityScore = storable().min(1).max(32);

/** `value` of a `message_template_status_update` change (approved, rejected with reason, paused, disabled...). */
export const MetaTemplateStatusUpdate = z.object({
  event: storable().min(1).max(64),
  message_template_id: templateId.optional(),
  message_template_name: text.pipe(storable().min(1).max(512)),
  message_template_language: storable().max(32).optional(),
  /** A rejection reason (INVALID_FORMAT, ...), NONE, or null (scheduled for deletion). */
  reason: text.pipe(storable().max(1024)).nullable().optional(),
  message_template_category: storable().max(64).optional(),
  other_info: z.object({ title: text.optional(), description: text.optional() }).optional(),
  rejection_info: z.object({ reason: text.optional(), recommendation: text.optional() }).optional(),
  disable_info: z.object({ disable_date: z.union([z.number(), storable()]).optional() }).optional(),
});
export type MetaTemplateStatusUpdate = z.infer<typeof MetaTemplateStatusUpdate>;

/** `value` of a `message_template_quality_update` change. */
export const MetaTemplateQualityUpdate = z.object({
  previous_quality_score: qualityScore.optional(),
  new_quality_score: qualityScore,
  message_template_id: templateId.optional(),
  message_template_name: text.pipe(storable().min(1).max(512)),
  message_template_language: storable().max(32).optional(),
});
export type MetaTemplateQualityUpdate = z.infer<typeof MetaTemplateQualityUpdate>;

/** One template change, with the WABA it is about (`entry[].id`) and when Meta sent it (`entry[].time`). */
export type MetaTemplateNotice = {
  wabaId: string;
  /** `entry[].time` (Unix seconds) as a Date; null when absent. */
  time: Date | null;
} & (
  | { field: "message_template_status_update"; value: MetaTemplateStatusUpdate }
  | { field: "message_template_quality_update"; value: MetaTemplateQualityUpdate }
);

const TEMPLATE_FIELDS = new Set(["message_template_status_update", "message_template_quality_update"]);

/** One item of a `user_preferences` change: a contact stopped or resumed marketing messages from the business. */
export const MetaUserPreferenceItem = z
  .object({
    /** The user's phone, when it may be shared; the BSUID always (2026). */
    wa_id: conditionalPhone,
    user_id: bsuid,
    parent_user_id: bsuid,
    detail: text.optional(),
    /** `marketing_messages` (the only category Meta reports today). */
    category: storable().min(1).max(64),
    /** `stop` or `resume`; other values are read and left to the caller. */
    value: storable().min(1).max(64),
    /** Unix seconds; a JSON number in Meta's examples. */
    timestamp: z.union([z.number().int().nonnegative(), storable().regex(/^\d{1,11}$/)]).optional(),
  })
  .refine((item) => item.wa_id !== undefined || item.user_id !== undefined, "sem wa_id nem user_id");
export type MetaUserPreferenceItem = z.infer<typeof MetaUserPreferenceItem>;

/** One marketing preference change, with the business number it is about (`value.metadata.phone_number_id`). */
export interface MetaUserPreference {
  phoneNumberId: string;
  /** The item's `timestamp` as a Date; null when absent or not a plausible Unix time. */
  time: Date | null;
  value: MetaUserPreferenceItem;
}

export interface QuarantinedItem {
  /** Where in the payload, e.g. `entry[0].changes[1].value.statuses[3]`. */
  path: string;
  reason: string;
}

/**
 * A WhatsApp user as a webhook names them: the phone when Meta shares it, the BSUID (on every webhook since April
 * 2026), the parent BSUID when the business enabled them, and display data (a username can change or disappear).
 */
export interface MetaUserRef {
  phone: string | null;
  bsuid: string | null;
  parentBsuid: string | null;
  username: string | null;
  name: string | null;
}

/** One inbound message and its sender: `from_user_id`, else the contact's `user_id`, else `from` (before 2026). */
export interface InboundMessage {
  /**
   * It came on Meta's `standby` field (meta-late-2026 §5): another app (Meta's Business AI agent, say) owns the
   * conversation. Still the customer's message: stored and forwarded like any other.
   */
  standby?: boolean;
  message: MetaInboundItem;
  sender: MetaUserRef;
}

export interface InboundGroup {
  phoneNumberId: string;
  contacts: MetaContact[];
  messages: InboundMessage[];
}

/** Who a user was and is after a change of phone number or of BSUID (the two ways Meta tells it). */
export interface MetaIdentityChange {
  phoneNumberId: string;
  /** The `user_id_update` webhook field, or the `system` message that announced it. */
  source: "user_id_update" | "user_changed_user_id" | "user_changed_number";
  /** The system message's wamid (Meta redelivers), or null for `user_id_update`. */
  wamid: string | null;
  time: Date | null;
  previous: { phone: string | null; bsuid: string | null; parentBsuid: string | null };
  current: { phone: string | null; bsuid: string | null; parentBsuid: string | null };
  name: string | null;
}

/**
 * One `messaging_handovers` notification (Conversation Routing, meta-late-2026 §5): the thread of a customer's
 * conversation moved between apps. `control_passed` reaches the new holder, `control_taken` the previous one; a
 * release notifies nobody. The value's envelope beyond `type` and its two objects is a partner's report
 * (docs/decisions.md, "Conversation Routing: thread control"): the roles are kept as sent.
 */
export interface MetaHandover {
  phoneNumberId: string;
  type: "control_passed" | "control_taken";
  /** `value.timestamp` as a Date; null when absent or not a plausible Unix time. */
  time: Date | null;
  user: MetaUserRef;
  previousRole: string | null;
  currentRole: string | null;
  /** What the app that passed the thread wrote for the new holder. */
  metadata: string | null;
}

const role = storable().min(1).max(64);
const HandoverControl = z.object({
  previous_role: role.optional(),
  current_role: role.optional(),
  metadata: text.pipe(z.string().max(2000)).optional(),
});

const HandoverValue = z
  .object({
    type: z.enum(["control_passed", "control_taken"]),
    timestamp: z.union([z.number().int().nonnegative(), storable().regex(/^\d{1,11}$/)]).optional(),
    sender: z
      .object({ phone_number: conditionalPhone, user_id: bsuid, parent_user_id: bsuid })
      .refine(
        (sender) => sender.phone_number !== undefined || sender.user_id !== undefined,
        "sem phone_number nem user_id",
      ),
    control_passed: HandoverControl.optional(),
    control_taken: HandoverControl.optional(),
  })
  .refine((value) => value[value.type] !== undefined, "sem o objeto que type nomeia");

/** The WABA-level webhooks about the account and its numbers' health, stored as Meta sent them. */
export const ACCOUNT_EVENT_FIELDS = [
  "account_update",
  "phone_number_quality_update",
  "business_capability_update",
  "message_template_components_update",
  "template_category_update",
  "account_alerts",
] as const;
export type AccountEventField = (typeof ACCOUNT_EVENT_FIELDS)[number];

/** One account or number health change, with the WABA it is about (`entry[].id`) and its `value` as sent. */
export interface MetaAccountEvent {
  field: AccountEventField;
  wabaId: string;
  /** `entry[].time` (Unix seconds) as a Date; null when absent. */
  time: Date | null;
  /** Meta's `value` (Meta's own examples sometimes nest `field` in it: read defensively by the consumer). */
  value: Record<string, unknown>;
}

export interface MetaWebhookItems {
  statuses: MetaStatus[];
  inbound: InboundGroup[];
  /** Every user a `contacts[]` array named, with the business number it wrote to or got a status from. */
  contacts: { phoneNumberId: string; user: MetaUserRef }[];
  /** Phone and BSUID changes (`user_id_update`, and the `system` messages that announce them), in payload order. */
  identityChanges: MetaIdentityChange[];
  /** Template status and quality changes, in payload order. */
  templateNotices: MetaTemplateNotice[];
  /** Marketing preference changes (`user_preferences` field), in payload order. */
  userPreferences: MetaUserPreference[];
  /** Account and number health (ACCOUNT_EVENT_FIELDS), in payload order. */
  accountEvents: MetaAccountEvent[];
  /** Conversation Routing's thread moves (`messaging_handovers` field), in payload order. */
  handovers: MetaHandover[];
  quarantined: QuarantinedItem[];
  /** Changes of fields the gateway does not act on, e.g. `smb_message_echoes`. */
  ignoredChanges: number;
}

function userOf(contact: MetaContact): MetaUserRef {
  return {
    phone: contact.wa_id ?? null,
    bsuid: contact.user_id ?? null,
    parentBsuid: contact.parent_user_id ?? null,
    username: contact.profile?.username ?? null,
    name: contact.profile?.name ?? null,
  };
}

/**
 * The sender of an inbound message (meta-2026 §1.4): `from_user_id`, else the `user_id` of its contact (the one with
 * its phone, or the only one), else `from`. Null when the message names no one.
 */
function readSender(message: MetaInboundItem, contacts: readonly MetaContact[]): MetaUserRef | null {
  const contact =
    contacts.find((c) => message.from_user_id !== undefined && c.user_id === message.from_user_id) ??
    contacts.find((c) => message.from !== undefined && c.wa_id === message.from) ??
    (contacts.length === 1 ? contacts[0] : undefined);
  const bsuid = message.from_user_id ?? contact?.user_id ?? null;
  const phone = message.from ?? null;
  if (bsuid === null && phone === null) return null;
  return {
    phone,
    bsuid,
    parentBsuid: message.from_parent_user_id ?? contact?.parent_user_id ?? null,
    username: contact?.profile?.username ?? null,
    name: contact?.profile?.name ?? null,
  };
}

const SYSTEM_CHANGES = new Set(["user_changed_user_id", "user_changed_number"]);
/** The old BSUID of `user_changed_user_id` is only in its text: "User NAME changed from OLD to NEW". */
const CHANGED_FROM = /changed from (\S+) to (\S+)\s*$/;

/** A `system` message announcing a change of number or of BSUID, as an identity change; null for any other. */
function systemChange(phoneNumberId: string, message: MetaInboundItem): MetaIdentityChange | null {
  const system = message.system;
  const type = system?.type;
  if (!system || message.type !== "system" || type === undefined || !SYSTEM_CHANGES.has(type)) return null;
  const seconds = /^\d{1,11}$/.test(message.timestamp) ? Number(message.timestamp) : Number.NaN;
  const fromText = CHANGED_FROM.exec(system.body ?? "");
  return {
    phoneNumberId,
    source: type as "user_changed_user_id" | "user_changed_number",
    wamid: message.id,
    time: unixTime(seconds),
    previous: {
      phone: message.from ?? null,
      // Meta's own member since August 2026; before it, the old BSUID of a user_changed_user_id was in the text only.
      bsuid:
        system.previous_user_id ??
        (type === "user_changed_user_id" ? (fromText?.[1] ?? message.from_user_id ?? null) : null),
      parentBsuid: system.previous_parent_user_id ?? null,
    },
    current: {
      phone: type === "user_changed_number" ? (system.wa_id ?? null) : null,
      bsuid: system.user_id ?? (type === "user_changed_user_id" ? (fromText?.[2] ?? null) : null),
      parentBsuid: system.parent_user_id ?? null,
    },
    name: null,
  };
}

/** One item of a `user_id_update` change: `user_id` and `parent_user_id` are objects `{previous, current}` here. */
const UserIdUpdateItem = z.object({
  wa_id: conditionalPhone,
  detail: text.optional(),
  user_id: z.object({ previous: bsuid, current: bsuid }),
  parent_user_id: z.object({ previous: bsuid, current: bsuid }).optional(),
  timestamp: z.union([z.number().int().nonnegative(), storable().regex(/^\d{1,11}$/)]).optional(),
});

function issueText(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "(item)"}: ${issue.message}`)
    .join("; ");
}

function listAt(value: Record<string, unknown>, key: string, path: string, quarantined: QuarantinedItem[]): unknown[] {
  const list = value[key];
  if (list === undefined || list === null) return [];
  if (Array.isArray(list)) return list;
  quarantined.push({ path: `${path}.${key}`, reason: "não é uma lista" });
  return [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Split a parsed webhook body into the items to apply and the ones set aside. Never throws. */
export function readMetaWebhook(body: unknown): MetaWebhookItems {
  const result: MetaWebhookItems = {
    statuses: [],
    inbound: [],
    contacts: [],
    identityChanges: [],
    templateNotices: [],
    userPreferences: [],
    accountEvents: [],
    handovers: [],
    quarantined: [],
    ignoredChanges: 0,
  };
  if (!isRecord(body)) {
    result.quarantined.push({ path: "", reason: "o corpo não é um objeto" });
    return result;
  }
  listAt(body, "entry", "", result.quarantined).forEach((entry, e) => {
    const entryPath = `entry[${e}]`;
    if (!isRecord(entry)) return void result.quarantined.push({ path: entryPath, reason: "não é um objeto" });
    listAt(entry, "changes", entryPath, result.quarantined).forEach((change, c) => {
      const changePath = `${entryPath}.changes[${c}]`;
      if (!isRecord(change)) return void result.quarantined.push({ path: changePath, reason: "não é um objeto" });
      if (typeof change.field === "string" && TEMPLATE_FIELDS.has(change.field))
        return void readTemplateChange(entry, change, changePath, result);
      if (change.field === "user_preferences") return void readUserPreferences(change, changePath, result);
      if (change.field === "user_id_update") return void readUserIdUpdate(change, changePath, result);
      if (change.field === "messaging_handovers") return void readHandover(change, changePath, result);
      if (typeof change.field === "string" && (ACCOUNT_EVENT_FIELDS as readonly string[]).includes(change.field))
        return void readAccountEvent(entry, change, changePath, result);
      // `standby` carries the messages of conversations another app owns, in the shape of `messages` (§5).
      if (change.field !== "messages" && change.field !== "standby") return void result.ignoredChanges++;
      const standby = change.field === "standby";
      const value = change.value;
      if (!isRecord(value))
        return void result.quarantined.push({ path: `${changePath}.value`, reason: "não é um objeto" });
      const valuePath = `${changePath}.value`;
      const meta = metadata.safeParse(value.metadata);
      const statuses: MetaStatus[] = [];
      listAt(value, "statuses", valuePath, result.quarantined).forEach((item, s) => {
        const parsed = MetaStatusItem.safeParse(item);
        if (parsed.success)
          statuses.push({ ...parsed.data, phoneNumberId: meta.success ? meta.data.phone_number_id : null });
        else result.quarantined.push({ path: `${valuePath}.statuses[${s}]`, reason: issueText(parsed.error) });
      });
      result.statuses.push(...statuses);
      const rawMessages = listAt(value, "messages", valuePath, result.quarantined);
      const rawContacts = listAt(value, "contacts", valuePath, result.quarantined);
      const links = statuses.filter((status) => status.recipient_user_id && status.recipient_id);
      if (rawMessages.length === 0 && rawContacts.length === 0 && links.length === 0) return;
      if (!meta.success) {
        // Statuses are matched by wamid and need no metadata; messages do.
        if (rawMessages.length > 0)
          result.quarantined.push({ path: `${valuePath}.metadata`, reason: issueText(meta.error) });
        return;
      }
      const phoneNumberId = meta.data.phone_number_id;
      // A status names the phone it was sent to and the BSUID behind it: the same user (learnt as one contact).
      for (const status of links)
        result.contacts.push({
          phoneNumberId,
          user: {
            phone: status.recipient_id ?? null,
            bsuid: status.recipient_user_id ?? null,
            parentBsuid: status.recipient_parent_user_id ?? null,
            username: null,
            name: null,
          },
        });
      const group: InboundGroup = { phoneNumberId, contacts: [], messages: [] };
      for (const contact of rawContacts) {
        const parsed = MetaContact.safeParse(contact);
        if (!parsed.success) continue;
        group.contacts.push(parsed.data);
        result.contacts.push({ phoneNumberId, user: userOf(parsed.data) });
      }
      rawMessages.forEach((item, m) => {
        const path = `${valuePath}.messages[${m}]`;
        const parsed = MetaInboundItem.safeParse(item);
        if (!parsed.success) return void result.quarantined.push({ path, reason: issueText(parsed.error) });
        const change = systemChange(phoneNumberId, parsed.data);
        if (change) return void result.identityChanges.push(change);
        const sender = readSender(parsed.data, group.contacts);
        if (!sender) return void result.quarantined.push({ path, reason: "sem remetente (from nem from_user_id)" });
        group.messages.push(standby ? { message: parsed.data, sender, standby } : { message: parsed.data, sender });
      });
      if (group.messages.length > 0) result.inbound.push(group);
    });
  });
  return result;
}

/** Unix seconds; anything else (or a value no Date can hold) is null. */
function unixTime(value: unknown): Date | null {
  const seconds = typeof value === "number" ? value : Number.NaN;
  return Number.isInteger(seconds) && seconds > 0 && seconds < 1e11 ? new Date(seconds * 1000) : null;
}

/** `entry[].time` in Unix seconds; anything else (or a value no Date can hold) is null. */
function entryTime(entry: Record<string, unknown>): Date | null {
  return unixTime(entry.time);
}

/**
 * The value of a change that lists `field` items of one business number: the value, its items and the number's id;
 * nothing when it lists none, or when the value or its metadata cannot be read (quarantined).
 */
function numberItems(change: Record<string, unknown>, changePath: string, field: string, result: MetaWebhookItems) {
  const valuePath = `${changePath}.value`;
  const value = change.value;
  if (!isRecord(value)) return void result.quarantined.push({ path: valuePath, reason: "não é um objeto" });
  const items = listAt(value, field, valuePath, result.quarantined);
  if (items.length === 0) return;
  const meta = metadata.safeParse(value.metadata);
  if (!meta.success)
    return void result.quarantined.push({ path: `${valuePath}.metadata`, reason: issueText(meta.error) });
  return { value, valuePath, items, phoneNumberId: meta.data.phone_number_id };
}

function readUserPreferences(change: Record<string, unknown>, changePath: string, result: MetaWebhookItems): void {
  const listed = numberItems(change, changePath, "user_preferences", result);
  if (!listed) return;
  const { valuePath, items, phoneNumberId } = listed;
  items.forEach((item, i) => {
    const parsed = MetaUserPreferenceItem.safeParse(item);
    if (!parsed.success)
      return void result.quarantined.push({
        path: `${valuePath}.user_preferences[${i}]`,
        reason: issueText(parsed.error),
      });
    const { timestamp } = parsed.data;
    result.userPreferences.push({
      phoneNumberId,
      time: unixTime(typeof timestamp === "string" ? Number(timestamp) : timestamp),
      value: parsed.data,
    });
  });
}

function readHandover(change: Record<string, unknown>, changePath: string, result: MetaWebhookItems): void {
  const valuePath = `${changePath}.value`;
  const value = change.value;
  if (!isRecord(value)) return void result.quarantined.push({ path: valuePath, reason: "não é um objeto" });
  const meta = metadata.safeParse(value.metadata);
  if (!meta.success)
    return void result.quarantined.push({ path: `${valuePath}.metadata`, reason: issueText(meta.error) });
  const parsed = HandoverValue.safeParse(value);
  if (!parsed.success) return void result.quarantined.push({ path: valuePath, reason: issueText(parsed.error) });
  const { type, timestamp, sender } = parsed.data;
  const control = parsed.data[type];
  result.handovers.push({
    phoneNumberId: meta.data.phone_number_id,
    type,
    time: unixTime(typeof timestamp === "string" ? Number(timestamp) : timestamp),
    user: {
      phone: sender.phone_number ?? null,
      bsuid: sender.user_id ?? null,
      parentBsuid: sender.parent_user_id ?? null,
      username: null,
      name: null,
    },
    previousRole: control?.previous_role ?? null,
    currentRole: control?.current_role ?? null,
    metadata: control?.metadata ?? null,
  });
}

function readUserIdUpdate(change: Record<string, unknown>, changePath: string, result: MetaWebhookItems): void {
  const listed = numberItems(change, changePath, "user_id_update", result);
  if (!listed) return;
  const { value, valuePath, items, phoneNumberId } = listed;
  const contacts = listAt(value, "contacts", valuePath, result.quarantined).flatMap((contact) => {
    const parsed = MetaContact.safeParse(contact);
    return parsed.success ? [parsed.data] : [];
  });
  items.forEach((item, i) => {
    const parsed = UserIdUpdateItem.safeParse(item);
    if (!parsed.success || (!parsed.data.user_id.previous && !parsed.data.user_id.current))
      return void result.quarantined.push({
        path: `${valuePath}.user_id_update[${i}]`,
        reason: parsed.success ? "user_id sem previous nem current" : issueText(parsed.error),
      });
    const { wa_id: phone, user_id: userId, parent_user_id: parentId, timestamp } = parsed.data;
    const contact = contacts.find((c) => phone !== undefined && c.wa_id === phone) ?? contacts[0];
    result.identityChanges.push({
      phoneNumberId,
      source: "user_id_update",
      wamid: null,
      time: unixTime(typeof timestamp === "string" ? Number(timestamp) : timestamp),
      // The phone, when shared, is the user's (current) number: it names them before and after.
      previous: { phone: phone ?? null, bsuid: userId.previous ?? null, parentBsuid: parentId?.previous ?? null },
      current: { phone: phone ?? null, bsuid: userId.current ?? null, parentBsuid: parentId?.current ?? null },
      name: contact?.profile?.name ?? null,
    });
  });
}

/** The entry's WhatsApp Business Account id; nothing when it has none (the change is quarantined). */
function entryWabaId(entry: Record<string, unknown>, changePath: string, result: MetaWebhookItems): string | undefined {
  const wabaId = id.safeParse(entry.id);
  if (wabaId.success) return wabaId.data;
  result.quarantined.push({ path: changePath, reason: "entry sem o id da conta WhatsApp Business" });
}

function readAccountEvent(
  entry: Record<string, unknown>,
  change: Record<string, unknown>,
  changePath: string,
  result: MetaWebhookItems,
): void {
  const wabaId = entryWabaId(entry, changePath, result);
  if (wabaId === undefined) return;
  if (!isRecord(change.value))
    return void result.quarantined.push({ path: `${changePath}.value`, reason: "não é um objeto" });
  result.accountEvents.push({
    field: change.field as AccountEventField,
    wabaId,
    time: entryTime(entry),
    value: change.value,
  });
}

function readTemplateChange(
  entry: Record<string, unknown>,
  change: Record<string, unknown>,
  changePath: string,
  result: MetaWebhookItems,
): void {
  const wabaId = entryWabaId(entry, changePath, result);
  if (wabaId === undefined) return;
  const time = entryTime(entry);
  const valuePath = `${changePath}.value`;
  if (change.field === "message_template_status_update") {
    const parsed = MetaTemplateStatusUpdate.safeParse(change.value);
    if (!parsed.success) return void result.quarantined.push({ path: valuePath, reason: issueText(parsed.error) });
    result.templateNotices.push({ wabaId, time, field: change.field, value: parsed.data });
    return;
  }
  const parsed = MetaTemplateQualityUpdate.safeParse(change.value);
  if (!parsed.success) return void result.quarantined.push({ path: valuePath, reason: issueText(parsed.error) });
  result.templateNotices.push({
    wabaId,
    time,
    field: "message_template_quality_update",
    value: parsed.data,
  });
}
