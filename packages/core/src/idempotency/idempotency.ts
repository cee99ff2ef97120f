import { createHash } from "node:crypto";
import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";

/**
 * Idempotency-Key reservations (spec 4.1). The key is reserved in Postgres BEFORE the provider is called:
 * - same key + same fingerprint after completion -> the stored answer, byte for byte;
 * - same key while the first call runs -> 409 idempotency_in_flight;
 * - same key + different content -> 409 idempotency_conflict;
 * - a record without fingerprint (written before fingerprints existed) -> 409 idempotency_legacy_unverified.
 * A confirmed refusal releases the key; a provider call without confirmation completes it with a 503 that
 * every repeat gets, so the message is never sent twice.
 */
export interface StoredResponse {
  status: number;
  body: string;
}

export type Reservation = { kind: "reserved"; id: bigint } | { kind: "replay"; response: StoredResponse };

/** Canonical JSON (sorted keys) so that field order does not change the fingerprint. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

export function fingerprint(request: unknown): string {
  return createHash("sha256").update(canonicalJson(request)).digest("hex");
}

export interface IdempotencyStore {
  reserve(input: {
    accountId: string;
    key: string;
    fingerprint: string;
    requestId: string | null;
  }): Promise<Reservation>;
  /** Store the final answer; repeats with the key replay it. */
  complete(id: bigint, response: StoredResponse): Promise<void>;
  /** Forget the key after a confirmed refusal, so the caller may try again with it. */
  release(id: bigint): Promise<void>;
}

export interface IdempotencyOptions {
  /** How long keys are kept (at least 24 h). */
  ttlHours: number;
  /**
   * An in-flight reservation older than this belongs to a process that died during the provider call:
   * the send may have gone out, so it is settled as unconfirmed instead of being freed.
   */
  staleAfterMs: number;
  unconfirmedResponse: () => StoredResponse;
}

export function createIdempotencyStore(db: Db, options: IdempotencyOptions): IdempotencyStore {
  const expiry = () => new Date(Date.now() + options.ttlHours * 3_600_000);

  async function reserve(input: {
    accountId: string;
    key: string;
    fingerprint: string;
    requestId: string | null;
  }): Promise<Reservation> {
    for (let round = 0; round < 3; round++) {
      const inserted = await db.$queryRaw<{ id: bigint }[]>`
        INSERT INTO idempotency_keys (account_id, key, fingerprint, state, request_id, expires_at)
        VALUES (${input.accountId}::uuid, ${input.key}, ${input.fingerprint}, 'in_flight', ${input.requestId}, ${expiry()})
        ON CONFLICT (account_id, key) DO NOTHING
        RETURNING id`;
      const first = inserted[0];
      if (first) return { kind: "reserved", id: first.id };

      const existing = await db.idempotencyKey.findUnique({
        where: { accountId_key: { accountId: input.accountId, key: input.key } },
      });
      if (!existing) continue; // released between our insert and read: try again
      if (existing.expiresAt.getTime() <= Date.now()) {
        // Expired keys are free again; delete only that exact expired row.
        await db.idempotencyKey.deleteMany({ where: { id: existing.id, expiresAt: { lte: new Date() } } });
        continue;
      }
      if (existing.fingerprint === null) throw new ApiError("idempotency_legacy_unverified");
      if (existing.fingerprint !== input.fingerprint) throw new ApiError("idempotency_conflict");
      if (existing.state === "completed" && existing.responseStatus !== null && existing.responseBody !== null) {
        return { kind: "replay", response: { status: existing.responseStatus, body: existing.responseBody } };
      }
      if (Date.now() - existing.updatedAt.getTime() > options.staleAfterMs) {
        const response = options.unconfirmedResponse();
        const settled = await db.idempotencyKey.updateMany({
          where: { id: existing.id, state: "in_flight", updatedAt: existing.updatedAt },
          data: {
            state: "completed",
            responseStatus: response.status,
            responseBody: response.body,
            updatedAt: new Date(),
          },
        });
        if (settled.count === 1) return { kind: "replay", response };
        continue;
      }
      throw new ApiError("idempotency_in_flight");
    }
    throw new ApiError("idempotency_in_flight");
  }

  return {
    reserve,
    async complete(id, response) {
      await db.idempotencyKey.update({
        where: { id },
        data: {
          state: "completed",
          responseStatus: response.status,
          responseBody: response.body,
          updatedAt: new Date(),
        },
      });
    },
    async release(id) {
      await db.idempotencyKey.deleteMany({ where: { id, state: "in_flight" } });
    },
  };
}

/**
 * Housekeeping (the dispatcher's maintenance loop): drop expired keys in bounded batches, so a large
 * backlog never becomes one long-running delete holding locks. Returns how many were removed.
 */
export async function purgeExpiredIdempotencyKeys(db: Db, now = new Date(), batchSize = 5_000): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await db.$executeRaw`
      DELETE FROM idempotency_keys
      WHERE id IN (SELECT id FROM idempotency_keys WHERE expires_at < ${now} ORDER BY expires_at LIMIT ${batchSize})`;
    total += removed;
    if (removed < batchSize) return total;
  }
}
