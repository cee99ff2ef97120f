import { META_TITLES } from "./graph/errors.ts";
import { displayPhoneNumber } from "./ids.ts";

/**
 * A `value.contacts[]` entry (meta-2026 Appendix A): `wa_id` only when the number may see the phone, `user_id`
 * (BSUID) always except in `user_id_update` (Meta's example has none there), `parent_user_id` when enabled,
 * `profile.username` when the user adopted one (not on `sent` statuses).
 */
export interface WebhookContact {
  profile: { name: string; username?: string };
  wa_id?: string;
  user_id?: string;
  parent_user_id?: string;
}

export interface WebhookValue {
  messaging_product: "whatsapp";
  metadata: { display_phone_number: string; phone_number_id: string };
  contacts?: WebhookContact[];
  messages?: Record<string, unknown>[];
  statuses?: Record<string, unknown>[];
}

/**
 * The fields of a messages-shaped change: `messages` for conversations this app owns (and the statuses of its own
 * sends), `standby` for user messages of conversations another app owns (Conversation Routing, meta-late-2026 §5).
 */
export type MessagesField = "messages" | "standby";

export interface WebhookPayload {
  object: "whatsapp_business_account";
  entry: { id: string; changes: { field: MessagesField; value: WebhookValue }[] }[];
}

/** Meta's WhatsApp Business Account fields about templates (not about messages). */
export type TemplateWebhookField =
  | "message_template_status_update"
  | "message_template_quality_update"
  | "message_template_components_update"
  | "template_category_update";

/** WABA-level fields about the account's and its numbers' health (meta-2026 §3). */
export type AccountWebhookField = "account_update" | "phone_number_quality_update" | "business_capability_update";

/**
 * A WABA-level webhook: the WABA in `entry[].id`, `time` in Unix seconds, one change; no `messaging_product` nor
 * `metadata` in the value.
 */
export interface WabaWebhookPayload<F extends string = TemplateWebhookField | AccountWebhookField> {
  object: "whatsapp_business_account";
  entry: { id: string; time: number; changes: { value: Record<string, unknown>; field: F }[] }[];
}

export type TemplateWebhookPayload = WabaWebhookPayload<TemplateWebhookField>;
export type AccountWebhookPayload = WabaWebhookPayload<AccountWebhookField>;

/** What a payload's envelope reads of the sandbox: its default WABA and its clock (the sandbox's state). */
interface EnvelopeSource {
  readonly wabaId: string;
  readonly now: () => number;
}

/** A WABA-level payload for one change, sent now. */
export function wabaPayload<F extends string>(
  state: EnvelopeSource,
  wabaId: string | undefined,
  field: F,
  value: Record<string, unknown>,
): WabaWebhookPayload<F> {
  return {
    object: "whatsapp_business_account",
    entry: [{ id: wabaId ?? state.wabaId, time: Math.floor(state.now() / 1000), changes: [{ value, field }] }],
  };
}

/** One item of `value.user_preferences`: a contact stopped or resumed marketing messages. */
export interface UserPreferenceItem {
  /** Only when the number may see the phone (meta-2026 §1.8). */
  wa_id?: string;
  user_id: string;
  parent_user_id?: string;
  detail: string;
  category: "marketing_messages";
  value: "stop" | "resume";
  /** Unix seconds, as a JSON number (Meta's). */
  timestamp: number;
}

/**
 * A webhook of one change about a user of a business number: the number in `metadata`, the user in `contacts`, the
 * change's items under the field's name (`V`); no `entry[].time`, as in Meta's examples.
 */
interface NumberChangePayload<F extends string, V extends object> {
  object: "whatsapp_business_account";
  entry: {
    id: string;
    changes: {
      field: F;
      value: { messaging_product: "whatsapp"; metadata: WebhookValue["metadata"]; contacts: WebhookContact[] } & V;
    }[];
  }[];
}

/** Meta's `user_preferences` webhook: the business number in metadata, the contact, one preference change. */
export type UserPreferencesPayload = NumberChangePayload<
  "user_preferences",
  { user_preferences: UserPreferenceItem[] }
>;

/** One item of `value.user_id_update` (meta-2026 §1.7): the ids are `{previous, current}` objects here. */
export interface UserIdUpdateItem {
  wa_id?: string;
  detail: string;
  user_id: { previous: string; current: string };
  parent_user_id?: { previous: string; current: string };
  /** Unix seconds, as a string (Meta's example). */
  timestamp: string;
}

/** Meta's `user_id_update` webhook: a user's BSUID changed (a separate field each app subscribes to). */
export type UserIdUpdatePayload = NumberChangePayload<"user_id_update", { user_id_update: UserIdUpdateItem[] }>;

/** An app's role in a number's Conversation Routing (meta-late-2026 §5). */
export type ThreadRole = "ai_agent" | "escalation_partner" | "partner";

/** The object named by a `messaging_handovers` value's `type`: the roles of the previous and the new owner. */
export interface HandoverChange {
  previous_role: ThreadRole;
  current_role: ThreadRole;
  /** The `metadata` the acting app gave; omitted when none. */
  metadata?: string;
}

/**
 * The value of a `messaging_handovers` change: the business number, `type` (`control_passed` to the new owner,
 * `control_taken` to the previous one) with the object of that name beside it, Unix seconds as a string, and the
 * user as inbound messages show it (`phone_number` only when the phone may be shared, `user_id` always,
 * `parent_user_id` when enabled). Meta's envelope is partly unverified: these names are what the gateway reads.
 */
export interface HandoverValue {
  messaging_product: "whatsapp";
  metadata: WebhookValue["metadata"];
  type: "control_passed" | "control_taken";
  timestamp: string;
  sender: { phone_number?: string; user_id: string; parent_user_id?: string };
  control_passed?: HandoverChange;
  control_taken?: HandoverChange;
}

/** Meta's `messaging_handovers` webhook (Conversation Routing thread control); no `entry[].time`. */
export interface MessagingHandoversPayload {
  object: "whatsapp_business_account";
  entry: { id: string; changes: { field: "messaging_handovers"; value: HandoverValue }[] }[];
}

/** Every payload the sandbox posts. */
export type AnyWebhookPayload =
  WebhookPayload | WabaWebhookPayload | UserPreferencesPayload | UserIdUpdatePayload | MessagingHandoversPayload;

/** The `metadata` of a number's messages-like webhooks. */
export function numberMetadata(phoneNumberId: string): WebhookValue["metadata"] {
  return { display_phone_number: displayPhoneNumber(phoneNumberId), phone_number_id: phoneNumberId };
}

/** A `NumberChangePayload`: the change `field` of the number's user `contacts`, with its `items`. */
export function numberChangePayload<F extends string, V extends object>(
  state: EnvelopeSource,
  wabaId: string | undefined,
  change: { field: F; phoneNumberId: string; contacts: WebhookContact[]; items: V },
): NumberChangePayload<F, V> {
  const value = {
    messaging_product: "whatsapp" as const,
    metadata: numberMetadata(change.phoneNumberId),
    contacts: change.contacts,
    ...change.items,
  };
  return {
    object: "whatsapp_business_account",
    entry: [{ id: wabaId ?? state.wabaId, changes: [{ field: change.field, value }] }],
  };
}

/**
 * Meta's webhook envelope; `messages`, `contacts` and `statuses` appear only when non-empty. `field` defaults to
 * `messages`; `standby` only for user messages of a conversation another app owns (`inboundPayload`).
 */
export function webhookPayload(
  state: EnvelopeSource,
  phoneNumberId: string,
  parts: {
    field?: MessagesField;
    wabaId?: string;
    contacts?: WebhookValue["contacts"];
    messages?: WebhookValue["messages"];
    statuses?: WebhookValue["statuses"];
  },
): WebhookPayload {
  const value: WebhookValue = { messaging_product: "whatsapp", metadata: numberMetadata(phoneNumberId) };
  if (parts.contacts?.length) value.contacts = parts.contacts;
  if (parts.messages?.length) value.messages = parts.messages;
  if (parts.statuses?.length) value.statuses = parts.statuses;
  return {
    object: "whatsapp_business_account",
    entry: [{ id: parts.wabaId ?? state.wabaId, changes: [{ field: parts.field ?? "messages", value }] }],
  };
}

/** Why a send the sandbox accepted then fails: its `failed` status carries this code in errors[0]. */
export type FailureCode = 131026 | 131050 | 131009 | 131053;

const FAILURES: Record<FailureCode, { title: string; details: string }> = {
  131026: { title: "Message undeliverable", details: "Message Undeliverable." },
  131050: { title: META_TITLES[131050], details: META_TITLES[131050] },
  // A reaction to a message that is not this user's, older than 30 days, or with `context` (meta-messages.md §3.1).
  131009: { title: META_TITLES[131009], details: "Reaction target message is not valid." },
  // A media link Meta could not download, or media whose bytes are not of its type (meta-messages.md §2.6).
  131053: {
    title: "Media upload error",
    details: "Downloading media from weblink failed with http code 404, status message Not Found",
  },
};

/** The errors[] entry of a `failed` status. */
export function statusError(code: FailureCode): Record<string, unknown> {
  const { title, details } = FAILURES[code];
  return {
    code,
    title,
    message: title,
    error_data: { details },
    href: "https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/",
  };
}
