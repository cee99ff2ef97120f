import { displayPhoneNumber } from "./ids.ts";
import type { SandboxState } from "./state.ts";

export interface WebhookValue {
  messaging_product: "whatsapp";
  metadata: { display_phone_number: string; phone_number_id: string };
  contacts?: { profile: { name: string }; wa_id: string }[];
  messages?: Record<string, unknown>[];
  statuses?: Record<string, unknown>[];
}

export interface WebhookPayload {
  object: "whatsapp_business_account";
  entry: { id: string; changes: { field: "messages"; value: WebhookValue }[] }[];
}

/** Meta's webhook envelope; `messages`, `contacts` and `statuses` appear only when non-empty. */
export function webhookPayload(
  state: SandboxState,
  phoneNumberId: string,
  parts: {
    wabaId?: string;
    contacts?: WebhookValue["contacts"];
    messages?: WebhookValue["messages"];
    statuses?: WebhookValue["statuses"];
  },
): WebhookPayload {
  const value: WebhookValue = {
    messaging_product: "whatsapp",
    metadata: { display_phone_number: displayPhoneNumber(phoneNumberId), phone_number_id: phoneNumberId },
  };
  if (parts.contacts?.length) value.contacts = parts.contacts;
  if (parts.messages?.length) value.messages = parts.messages;
  if (parts.statuses?.length) value.statuses = parts.statuses;
  return {
    object: "whatsapp_business_account",
    entry: [{ id: parts.wabaId ?? state.wabaId, changes: [{ field: "messages", value }] }],
  };
}

/** The errors[] entry of a `failed` status for an undeliverable message. */
export function undeliverableError(): Record<string, unknown> {
  return {
    code: 131026,
    title: "Message undeliverable",
    message: "Message undeliverable",
    error_data: { details: "Message Undeliverable." },
    href: "https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/",
  };
}
