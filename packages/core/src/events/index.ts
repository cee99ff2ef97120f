export { createDeliveries, createOutbox } from "./outbox.ts";
export type { Outbox } from "./outbox.ts";
export { STATUS_RANK, applyEarlyStatuses, applyStatus, shouldApply, storeAcceptedMessage } from "./message-status.ts";
export type { ProviderStatus, ProviderStatusUpdate, StoredStatus } from "./message-status.ts";
export { RECEIVED_TYPES, applyInbound, toReceivedData } from "./inbound.ts";
export type { MetaContact, MetaInboundMessage, ReceivedType } from "./inbound.ts";
export { MalformedWebhookError, ingestProviderWebhook } from "./provider-webhook.ts";
export type { IngestResult } from "./provider-webhook.ts";
