export {
  assertWebhook,
  DEFAULT_TOLERANCE_SECONDS,
  describeVerifyFailure,
  HEADER_ATTEMPT,
  HEADER_DELIVERY_ID,
  HEADER_EVENT,
  HEADER_SIGNATURE,
  HEADER_SIGNATURE_PREVIOUS,
  HEADER_TIMESTAMP,
  verifyWebhook,
  WebhookHeaders,
  WebhookVerificationError,
} from "./verify.ts";
export type {
  SignatureScheme,
  VerifyFailureReason,
  VerifyResult,
  VerifyWebhookInput,
  WebhookSecrets,
} from "./verify.ts";
export { StandardWebhookHeaders, verifyStandardWebhook } from "./standard.ts";
export type { VerifyStandardWebhookInput } from "./standard.ts";
export {
  MESSAGE_RECEIVED_TYPES,
  MESSAGE_STATUSES,
  parseWebhookEvent,
  STATUS_RANK,
  WEBHOOK_EVENTS,
  WebhookPayloadError,
} from "./events.ts";
export type {
  AccountUpdateData,
  AccountUpdateEffects,
  AccountUpdateEvent,
  ConversationHandoverData,
  ConversationHandoverEvent,
  ConversationUpdatedData,
  ConversationUpdatedEvent,
  GatewayWebhookEvent,
  MessagePricing,
  MessageReceivedData,
  MessageReceivedEvent,
  MessageReceivedType,
  MessageStatus,
  MessageStatusData,
  MessageStatusError,
  MessageStatusEvent,
  OrderUpdatedData,
  OrderUpdatedEvent,
  ReceivedButton,
  ReceivedContact,
  ReceivedInteractive,
  ReceivedLocation,
  ReceivedReaction,
  ReceivedReferral,
  WebhookEnvelope,
  WebhookEventName,
  WebhookPayloadErrorCode,
} from "./events.ts";
export { webhookReceiver } from "./middleware.ts";
export type {
  SecretLookup,
  SecretSource,
  WebhookHandler,
  WebhookMeta,
  WebhookReceiverOptions,
  WebhookRequest,
} from "./middleware.ts";
export { webhookFetchHandler } from "./fetch.ts";
export type { WebhookFetchHandler } from "./fetch.ts";
export { fastifyWebhooks } from "./fastify.ts";
export type {
  FastifyWebhookReply,
  FastifyWebhookRequest,
  FastifyWebhookScope,
  FastifyWebhooksOptions,
} from "./fastify.ts";
export type { WebhookAnswer } from "./receive.ts";
