export { deliveryBody, createOutbox, insertDeliveries, subscribedDeliveries } from "./outbox.ts";
export type { CommittedDelivery, Outbox, PendingDelivery } from "./outbox.ts";
export {
  SHOULD_APPLY_SQL,
  STATUS_RANK,
  applyEarlyStatuses,
  applyStatuses,
  isProviderStatus,
  lockWamids,
  shouldApply,
} from "./statuses.ts";
export type { ApplyStatusesOptions, ProviderStatus, ProviderStatusUpdate, StoredStatus } from "./statuses.ts";
export { RECEIVED_TYPES, applyInbound, toReceivedData } from "./inbound.ts";
export type { ReceivedType } from "./inbound.ts";
export {
  MalformedWebhookError,
  createIngestBatcher,
  ingestProviderWebhook,
  ingestProviderWebhooks,
  type BatchIngestOutcome,
  type IngestBatcher,
  type IngestBatcherOptions,
} from "./ingest.ts";
export type { IngestDeps, IngestResult } from "./ingest.ts";
