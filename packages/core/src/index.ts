export * from "./accounts/index.ts";
export { listBusinessNumbersWithQuality } from "./accounts/numbers.ts";
export type { BusinessNumberQualityView } from "./accounts/numbers.ts";
export { listAudit, recordAudit } from "./audit/audit.ts";
export type { AuditEntryView, AuditFilters, AuditInput } from "./audit/audit.ts";
export * from "./conversations/index.ts";
export { accountOverview } from "./dashboard/overview.ts";
export type { AccountOverview, FailingIntegration } from "./dashboard/overview.ts";
export * from "./events/index.ts";
export { canonicalJson, createIdempotencyStore, fingerprint } from "./idempotency/idempotency.ts";
export type {
  IdempotencyOptions,
  IdempotencyStore,
  Reservation,
  ReserveInput,
  StoredResponse,
} from "./idempotency/idempotency.ts";
export * from "./messages/index.ts";
export { normalizePhone } from "./phones/normalize.ts";
export type { NormalizedPhone } from "./phones/normalize.ts";
export { validatePhone } from "./phones/validate.ts";
export { WINDOW_MS, getWindow, windowStatus } from "./windows/windows.ts";
export type { WindowState } from "./windows/windows.ts";
export * from "./deliveries/index.ts";
export * from "./retention/index.ts";
export * from "./suppressions/index.ts";
export * from "./templates/index.ts";
export * from "./users/index.ts";
export * from "./throughput/index.ts";
export * from "./campaigns/index.ts";
