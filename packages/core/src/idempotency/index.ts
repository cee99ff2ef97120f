export { canonicalJson, createIdempotencyStore, fingerprint } from "./idempotency.ts";
export type { IdempotencyOptions, IdempotencyStore, Reservation, ReserveInput } from "./idempotency.ts";
export { createProcessLease } from "./lease.ts";
export type { ProcessLease, ProcessLeaseOptions } from "./lease.ts";
