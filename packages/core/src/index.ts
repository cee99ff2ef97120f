export * from "./accounts/index.ts";
export { listAudit, recordAudit } from "./audit/audit.ts";
export type { AuditInput } from "./audit/audit.ts";
export { CatalogueCache } from "./catalogue/catalogue.ts";
export type { CatalogueCacheOptions, TemplateSource } from "./catalogue/catalogue.ts";
export * from "./events/index.ts";
export {
  canonicalJson,
  createIdempotencyStore,
  fingerprint,
  purgeExpiredIdempotencyKeys,
} from "./idempotency/idempotency.ts";
export type { IdempotencyOptions, IdempotencyStore, Reservation, StoredResponse } from "./idempotency/idempotency.ts";
export * from "./messages/index.ts";
export { normalizePhone } from "./phones/normalize.ts";
export type { NormalizedPhone } from "./phones/normalize.ts";
export { WINDOW_MS, extendWindow, getWindow } from "./windows/windows.ts";
export type { WindowState } from "./windows/windows.ts";
export { getDelivery, listDeliveries } from "./delivery-views/queries.ts";
export * from "./deliveries/index.ts";
export * from "./templates/index.ts";
