export { META_ACTOR, applyAccountEvents, changedTemplateCatalogues } from "./apply.ts";
export type { AccountEventInput, ApplyAccountEventsOptions, PauseCampaignsOfNumbers } from "./apply.ts";
export { accountDisabledError, listWabaHealth, liftSendingBlock, sendingBlockRefusal } from "./blocks.ts";
export type { WabaHealthView } from "./blocks.ts";
export { HIGH_THROUGHPUT_RATE, healthAction } from "./meta-events.ts";
export type { HealthAction } from "./meta-events.ts";
export {
  ACCOUNT_EVENT_FIELDS,
  countUnreadAccountEvents,
  listAccountEvents,
  markAccountEventRead,
  markAllAccountEventsRead,
} from "./notices.ts";
export type { AccountEventField, AccountEventView } from "./notices.ts";
