// The deliveries' administration: views, manual retries, replays by period, the CSV export and endpoint health. It
// builds on the attempt core (../attempt), never the other way round.
export { getDelivery, getDeliveryDetail, listDeliveries } from "./views.ts";
export type { ListDeliveriesInput } from "./views.ts";
export { retryDelivery, retryFailedDeliveries } from "./retry.ts";
export type { RetriedDelivery, RetryDeliveryInput, RetryDeps, RetryFailedInput } from "./retry.ts";
export {
  DISPATCHER_ACTOR,
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
