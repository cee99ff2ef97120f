// Webhook deliveries: the attempt core (attempt/) and its administration (admin/), which builds on it.
export * from "./attempt/index.ts";
export * from "./admin/index.ts";
// The dispatcher's sender (the adapter @gw/webhook-sender), for the processes that build it.
export { classifyError, createWebhookSender } from "@gw/webhook-sender";
export type {
  SendErrorKind,
  WebhookRequest,
  WebhookResult,
  WebhookSender,
  WebhookSenderOptions,
} from "@gw/webhook-sender";
