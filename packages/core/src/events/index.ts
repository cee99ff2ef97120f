export {
  SHOULD_APPLY_SQL,
  applyEarlyStatuses,
  applyStatuses,
  isProviderStatus,
  lockWamids,
  shouldApply,
} from "./statuses.ts";
export type { ApplyStatusesOptions, ProviderStatus, ProviderStatusUpdate, StoredStatus } from "./statuses.ts";
export { RECEIVED_TYPES, applyInbound, receivedMembers, toReceivedData } from "./inbound.ts";
export type { ReceivedMembers, ReceivedType } from "./inbound.ts";
