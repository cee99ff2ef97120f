import { z } from "zod";

/**
 * Meta's WhatsApp Business webhook (`object: whatsapp_business_account`), read item by item: a malformed
 * status or message is set aside (quarantined) with the reason, and every well-formed item of the same
 * payload is still applied. Only the fields the gateway reads are declared; unknown fields pass through.
 */

/** Postgres text cannot hold NUL; Meta's texts never need it. */
const text = z.string().transform((value) => (value.includes("\u0000") ? value.replaceAll("\u0000", "") : value));
const id = z.string().min(1).max(512);

const metaError = z.object({
  code: z.number().int().optional(),
  title: text.optional(),
  message: text.optional(),
  error_data: z.object({ details: text.optional() }).optional(),
});

export const MetaStatusItem = z.object({
  id,
  status: z.string().min(1).max(64),
  timestamp: z.string().max(32).optional(),
  recipient_id: z.string().max(64).optional(),
  errors: z.array(metaError).optional(),
});
export type MetaStatusItem = z.infer<typeof MetaStatusItem>;

const media = z.object({
  id: z.string().max(512).optional(),
  mime_type: z.string().max(255).optional(),
  caption: text.optional(),
  filename: text.optional(),
});

export const MetaInboundItem = z.object({
  from: z.string().min(1).max(64),
  id,
  timestamp: z.string().max(32),
  type: z.string().min(1).max(64),
  text: z.object({ body: text.optional() }).optional(),
  image: media.optional(),
  audio: media.optional(),
  video: media.optional(),
  document: media.optional(),
  sticker: media.optional(),
  button: z.object({ text: text.optional(), payload: text.optional() }).optional(),
  interactive: z
    .object({
      type: z.string().optional(),
      button_reply: z.object({ id: z.string().optional(), title: text.optional() }).optional(),
      list_reply: z
        .object({ id: z.string().optional(), title: text.optional(), description: text.optional() })
        .optional(),
    })
    .optional(),
  context: z.object({ id: z.string().max(512).optional(), from: z.string().optional() }).optional(),
});
export type MetaInboundItem = z.infer<typeof MetaInboundItem>;

export const MetaContact = z.object({
  wa_id: z.string().max(64).optional(),
  profile: z.object({ name: text.optional() }).optional(),
});
export type MetaContact = z.infer<typeof MetaContact>;

const metadata = z.object({ phone_number_id: z.string().min(1).max(64), display_phone_number: z.string().optional() });

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
  quarantined: QuarantinedItem[];
  /** Changes of fields the gateway does not act on (yet), e.g. template status updates. */
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
  const result: MetaWebhookItems = { statuses: [], inbound: [], quarantined: [], ignoredChanges: 0 };
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
