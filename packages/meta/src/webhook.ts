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
  recipient_id: storable().max(64).optional(),
  errors: z.array(metaError).optional(),
});
export type MetaStatusItem = z.infer<typeof MetaStatusItem>;

const media = z.object({
  id: storable().max(512).optional(),
  mime_type: storable().max(255).optional(),
  caption: text.optional(),
  filename: text.optional(),
});

export const MetaInboundItem = z.object({
  from: storable().min(1).max(64),
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
    })
    .optional(),
  context: z.object({ id: storable().max(512).optional(), from: storable().optional() }).optional(),
});
export type MetaInboundItem = z.infer<typeof MetaInboundItem>;

export const MetaContact = z.object({
  wa_id: storable().max(64).optional(),
  profile: z.object({ name: text.optional() }).optional(),
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
export const MetaUserPreferenceItem = z.object({
  wa_id: storable().min(1).max(64),
  detail: text.optional(),
  /** `marketing_messages` (the only category Meta reports today). */
  category: storable().min(1).max(64),
  /** `stop` or `resume`; other values are read and left to the caller. */
  value: storable().min(1).max(64),
  /** Unix seconds; a JSON number in Meta's examples. */
  timestamp: z.union([z.number().int().nonnegative(), storable().regex(/^\d{1,11}$/)]).optional(),
});
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

export interface InboundGroup {
  phoneNumberId: string;
  contacts: MetaContact[];
  messages: MetaInboundItem[];
}

export interface MetaWebhookItems {
  statuses: MetaStatusItem[];
  inbound: InboundGroup[];
  /** Template status and quality changes, in payload order. */
  templateNotices: MetaTemplateNotice[];
  /** Marketing preference changes (`user_preferences` field), in payload order. */
  userPreferences: MetaUserPreference[];
  quarantined: QuarantinedItem[];
  /** Changes of fields the gateway does not act on (yet), e.g. phone number quality updates. */
  ignoredChanges: number;
}

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
    templateNotices: [],
    userPreferences: [],
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
      if (change.field !== "messages") return void result.ignoredChanges++;
      const value = change.value;
      if (!isRecord(value))
        return void result.quarantined.push({ path: `${changePath}.value`, reason: "não é um objeto" });
      const valuePath = `${changePath}.value`;
      listAt(value, "statuses", valuePath, result.quarantined).forEach((item, s) => {
        const parsed = MetaStatusItem.safeParse(item);
        if (parsed.success) result.statuses.push(parsed.data);
        else result.quarantined.push({ path: `${valuePath}.statuses[${s}]`, reason: issueText(parsed.error) });
      });
      const rawMessages = listAt(value, "messages", valuePath, result.quarantined);
      if (rawMessages.length === 0) return;
      const meta = metadata.safeParse(value.metadata);
      if (!meta.success)
        return void result.quarantined.push({ path: `${valuePath}.metadata`, reason: issueText(meta.error) });
      const group: InboundGroup = { phoneNumberId: meta.data.phone_number_id, contacts: [], messages: [] };
      listAt(value, "contacts", valuePath, result.quarantined).forEach((contact) => {
        const parsed = MetaContact.safeParse(contact);
        if (parsed.success) group.contacts.push(parsed.data);
      });
      rawMessages.forEach((item, m) => {
        const parsed = MetaInboundItem.safeParse(item);
        if (parsed.success) group.messages.push(parsed.data);
        else result.quarantined.push({ path: `${valuePath}.messages[${m}]`, reason: issueText(parsed.error) });
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

function readUserPreferences(change: Record<string, unknown>, changePath: string, result: MetaWebhookItems): void {
  const valuePath = `${changePath}.value`;
  const value = change.value;
  if (!isRecord(value)) return void result.quarantined.push({ path: valuePath, reason: "não é um objeto" });
  const items = listAt(value, "user_preferences", valuePath, result.quarantined);
  if (items.length === 0) return;
  const meta = metadata.safeParse(value.metadata);
  if (!meta.success)
    return void result.quarantined.push({ path: `${valuePath}.metadata`, reason: issueText(meta.error) });
  items.forEach((item, i) => {
    const parsed = MetaUserPreferenceItem.safeParse(item);
    if (!parsed.success)
      return void result.quarantined.push({
        path: `${valuePath}.user_preferences[${i}]`,
        reason: issueText(parsed.error),
      });
    const { timestamp } = parsed.data;
    result.userPreferences.push({
      phoneNumberId: meta.data.phone_number_id,
      time: unixTime(typeof timestamp === "string" ? Number(timestamp) : timestamp),
      value: parsed.data,
    });
  });
}

function readTemplateChange(
  entry: Record<string, unknown>,
  change: Record<string, unknown>,
  changePath: string,
  result: MetaWebhookItems,
): void {
  const wabaId = id.safeParse(entry.id);
  if (!wabaId.success)
    return void result.quarantined.push({ path: changePath, reason: "entry sem o id da conta WhatsApp Business" });
  const time = entryTime(entry);
  const valuePath = `${changePath}.value`;
  if (change.field === "message_template_status_update") {
    const parsed = MetaTemplateStatusUpdate.safeParse(change.value);
    if (!parsed.success) return void result.quarantined.push({ path: valuePath, reason: issueText(parsed.error) });
    result.templateNotices.push({ wabaId: wabaId.data, time, field: change.field, value: parsed.data });
    return;
  }
  const parsed = MetaTemplateQualityUpdate.safeParse(change.value);
  if (!parsed.success) return void result.quarantined.push({ path: valuePath, reason: issueText(parsed.error) });
  result.templateNotices.push({
    wabaId: wabaId.data,
    time,
    field: "message_template_quality_update",
    value: parsed.data,
  });
}
