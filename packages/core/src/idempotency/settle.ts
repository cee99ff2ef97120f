import type { Prisma } from "@gw/db";

/**
 * Completes a reservation inside the caller's transaction, with what the call did (the public API's creation of an
 * integration, accounts/integration-creation.ts): the key's answer commits with the call's rows, or neither does, so
 * it is never "maybe done" (`provider_called_at` is set with it: the call's effect is in the database). Only while the
 * reservation is still in flight: false when a repeat freed it as stale meanwhile, and the caller must roll back.
 */
export async function settleInTransaction(
  tx: Prisma.TransactionClient,
  reservationId: string,
  outcome: unknown,
): Promise<boolean> {
  const settled = await tx.$executeRaw`
    UPDATE idempotency_keys SET state = 'completed', outcome = ${JSON.stringify(outcome)}::jsonb,
      provider_called_at = now(), updated_at = now()
    WHERE id = ${reservationId}::bigint AND state = 'in_flight'`;
  return settled === 1;
}
