// The attempt core: a delivery from its outbox row to its settled attempt (claim, gate, sign, send, record, release),
// its schedule and deadline, the sweep, ordered delivery and the integrations' signing secrets.
export { deliveryBody, createOutbox, insertDeliveries, subscribedDeliveries } from "./outbox.ts";
export type { CommittedDelivery, Outbox, PendingDelivery } from "./outbox.ts";
export { DELIVERY_ERROR_KIND_MESSAGES } from "./error-kinds.ts";
export type { DeliveryErrorKind } from "./error-kinds.ts";
export { createDeliveryStatements } from "./statements.ts";
export type { DeliveryStatementOptions, DeliveryStatements, DeliveryStatus } from "./statements.ts";
export { DEFAULT_CLAIM_STALE_MS, processDeliveryAttempt, processFirstAttempts } from "./process.ts";
export type {
  AttemptAdmission,
  AttemptGate,
  AttemptOutcome,
  DeferReason,
  DeliverySettings,
  FirstAttemptsJob,
  FirstAttemptsOutcome,
  ProcessDeliveryDeps,
} from "./process.ts";
export { PARKED_BUDGET_START, attemptBudget, budgetLifetimeMs, nextDelayMs } from "./schedule.ts";
export { failExpiredDeliveries } from "./expiry.ts";
export type { ExpiryDeps, ExpiryOptions, ExpiryResult } from "./expiry.ts";
export { ensureAttemptQueued } from "./queueing.ts";
export type { EnsureResult } from "./queueing.ts";
export { createDeliveryScheduler, oldestDueDeliveryAgeSeconds, sweepDeliveries } from "./scheduling.ts";
export type { DeliveryScheduler, SchedulerOptions, SweepDeps, SweepOptions, SweepResult } from "./scheduling.ts";
export {
  contactOrderingKey,
  DEFAULT_HOLD_RECHECK_MS,
  messageOrderingKey,
  releaseAllHeldDeliveries,
} from "./ordering.ts";
export {
  clearExpiredPreviousSecrets,
  createCachedSecretBox,
  integrationSigningSecrets,
  reencryptIntegrationSecrets,
} from "./integration-secrets.ts";
export type { ReencryptReport, StoredSecret, UnreadableSecret } from "./integration-secrets.ts";
