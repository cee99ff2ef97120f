export {
  oldestEarlyStatusAgeSeconds,
  purgeAttemptResponseBodies,
  purgeAuditEntries,
  purgeContactProfiles,
  purgeContacts,
  purgeDeliveries,
  purgeEarlyStatuses,
  purgeExpiredIdempotencyKeys,
  purgeExpiredPanelSessions,
  purgeInboundContent,
  purgeInboundMessages,
  purgeProviderEvents,
  RETENTION_TARGETS,
  runRetention,
} from "./retention.ts";
export type {
  PurgeInput,
  RetentionDays,
  RetentionDeps,
  RetentionInput,
  RetentionResult,
  RetentionTarget,
} from "./retention.ts";
