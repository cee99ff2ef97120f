export {
  canonicalJson,
  createIdempotencyStore,
  fingerprint,
  fingerprintOf,
  fingerprintParts,
  reservationInsert,
} from "./idempotency.ts";
export type {
  FingerprintSource,
  IdempotencyOptions,
  IdempotencyStore,
  Reservation,
  ReservationValues,
  ReserveInput,
} from "./idempotency.ts";
export { createProcessLease } from "./lease.ts";
export type { ProcessLease, ProcessLeaseOptions } from "./lease.ts";
