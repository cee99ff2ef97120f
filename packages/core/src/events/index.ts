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
