export { attemptBudget, budgetLifetimeMs, nextDelayMs } from "./schedule.ts";
export { failExpiredDeliveries } from "./expiry.ts";
export type { ExpiryDeps, ExpiryOptions, ExpiryResult } from "./expiry.ts";
export { DELIVERY_ERROR_KIND_MESSAGES } from "./error-kinds.ts";
export type { DeliveryErrorKind } from "./error-kinds.ts";
// The dispatcher's sender (the adapter @gw/webhook-sender), for the processes that build it.
export { classifyError, createWebhookSender } from "@gw/webhook-sender";
export type {
  SendErrorKind,
  WebhookRequest,
  WebhookResult,
  WebhookSender,
  WebhookSenderOptions,
} from "@gw/webhook-sender";
export { ensureAttemptQueued } from "./queueing.ts";
export type { EnsureResult } from "./queueing.ts";
export { DELIVERY_STATUSES, createDeliveryStatements, processDeliveryAttempt } from "./process.ts";
export type {
  DeliveryStatementOptions,
  DeliveryStatements,
  AttemptAdmission,
  AttemptGate,
  AttemptOutcome,
  DeferReason,
  DeliverySettings,
  DeliveryStatus,
  ProcessDeliveryDeps,
} from "./process.ts";
export { createDeliveryScheduler, sweepDeliveries } from "./scheduling.ts";
export type { DeliveryScheduler, SchedulerOptions, SweepDeps, SweepOptions, SweepResult } from "./scheduling.ts";
export { getDelivery, getDeliveryDetail, listDeliveries } from "./views.ts";
export type { ListDeliveriesInput } from "./views.ts";
export { retryDelivery, retryFailedDeliveries } from "./retry.ts";
export type { RetriedDelivery, RetryDeliveryInput, RetryDeps, RetryFailedInput } from "./retry.ts";
export {
  DISPATCHER_ACTOR,
  PARKED_BUDGET_START,
  describeDuration,
  disableIfFailing,
  disabledReason,
  enableIntegration,
  endpointHealth,
} from "./endpoint-health.ts";
export type {
  DisabledIntegration,
  EnabledIntegration,
  EndpointHealth,
  HealthWindow,
  LastError,
} from "./endpoint-health.ts";
export {
  REPLAY_BATCH_SIZE,
  REPLAY_MAX_DAYS,
  REPLAY_STATUSES,
  advanceDeliveryReplay,
  checkDeliveryRange,
  createDeliveryReplay,
  getDeliveryReplay,
  listDeliveryReplays,
  replayLimitedMessage,
  unfinishedReplays,
} from "./replays.ts";
export type {
  AdvanceReplayDeps,
  AdvanceReplayInput,
  AdvanceReplayOutcome,
  CreateReplayDeps,
  CreateReplayInput,
  CreateReplayOutcome,
  DeliveryReplayView,
  ReplayLimiter,
  ReplayRefusal,
  ReplayRetention,
  ReplayState,
  ReplayStatus,
} from "./replays.ts";
export { DELIVERY_EXPORT_COLUMNS, exportDeliveries } from "./export.ts";
export type { ExportDeliveriesInput } from "./export.ts";
export {
  contactOrderingKey,
  DEFAULT_HOLD_RECHECK_MS,
  messageOrderingKey,
  releaseAllHeldDeliveries,
} from "./ordering.ts";
export { deliveryBody, createOutbox, insertDeliveries, subscribedDeliveries } from "./outbox.ts";
export type { CommittedDelivery, Outbox, PendingDelivery } from "./outbox.ts";
export {
  clearExpiredPreviousSecrets,
  createCachedSecretBox,
  integrationSigningSecrets,
  reencryptIntegrationSecrets,
} from "./integration-secrets.ts";
export type { ReencryptReport, StoredSecret, UnreadableSecret } from "./integration-secrets.ts";
