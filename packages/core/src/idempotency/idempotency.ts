import { createHash, randomBytes } from "node:crypto";
import { isDatabaseUnavailable, type Db, type Sql } from "@gw/db";
import { ApiError } from "@gw/errors";

/**
 * Idempotency-Key reservations (spec 4.1). The key is reserved in Postgres BEFORE the provider is called:
 * - same key + same fingerprint after completion -> the stored outcome, which every repeat gets;
 * - same key while the first call runs -> 409 idempotency_in_flight;
 * - same key + different content -> 409 idempotency_conflict;
 * - a record without fingerprint (written before fingerprints existed) -> 409 idempotency_legacy_unverified.
 * A confirmed refusal releases the key; a provider call without confirmation completes it as `unconfirmed`, which
 * every repeat gets, so the message is never sent twice. The moment the provider call starts is recorded, so
 * a reservation left by a process that died before reaching the provider is freed instead.
 *
 * A reservation records its owner, the process's lease (lease.ts). A repeat that finds the owner's lease expired or
 * gone settles the key at once (freed when the provider was not called, `unconfirmed` when it was); so does one that
 * finds the reservation older than the stale bound, the only rule for rows without an owner (written by the previous
 * release, or while the process held no live lease). Every 409 `idempotency_in_flight` says when the key can next
 * change hands (Retry-After): the earlier of the owner's lease running out and the reservation going stale.
 *
 * The store keeps the caller's domain outcome (JSON, `Outcome`), never an HTTP answer: the API renders it at its edge,
 * the same way for the first answer and for every replay.
 */
export type Reservation<Outcome> = { kind: "reserved"; id: string } | { kind: "replay"; outcome: Outcome };

/**
 * The reservation is no longer this call's: it went stale and a repeat with the same key freed it (and may be
 * sending now), or it was settled meanwhile. The call must not reach the provider; for the caller it is the same
 * as finding the key in flight.
 */
export class ReservationLostError extends Error {
  constructor(readonly reservationId: string) {
    super(`Idempotency-Key reservation ${reservationId} is no longer this call's`);
    this.name = "ReservationLostError";
  }
}

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

/**
 * What a key's fingerprint is taken over: the request, with the recipient's contact key in `recipientField` when the
 * fingerprint names the person (the key is read in the database, in the statement that reserves: messages/reserve.ts).
 */
export interface FingerprintSource {
  request: Record<string, unknown>;
  recipientField?: string;
}

/** The fingerprint of `source` with the recipient's contact key in place (what SQL computes from `fingerprintParts`). */
export function fingerprintOf(source: FingerprintSource, contactKey: string): string {
  const { request, recipientField } = source;
  return fingerprint(recipientField === undefined ? request : { ...request, [recipientField]: contactKey });
}

/**
 * The canonical JSON of `source` around the contact key's JSON string: SHA-256 of `before + key as JSON + after` is
 * `fingerprintOf(source, key)`, which a statement computes once it has read the key (`to_json(key)` writes a contact
 * key, digits or a BSUID, as JSON.stringify does). `whole` when the fingerprint does not name the recipient.
 */
export function fingerprintParts(source: FingerprintSource): { before: string; after: string } | { whole: string } {
  if (source.recipientField === undefined) return { whole: fingerprint(source.request) };
  // A value no request holds: random, so no text of the request can be taken for it.
  const marker = JSON.stringify(`recipient-${randomBytes(12).toString("hex")}`);
  const text = canonicalJson({ ...source.request, [source.recipientField]: JSON.parse(marker) as string });
  const at = text.indexOf(marker);
  return { before: text.slice(0, at), after: text.slice(at + marker.length) };
}

export interface ReserveInput {
  accountId: string;
  key: string;
  /**
   * What the call asked for, hashed (`fingerprint()`); a repeat with another one is a conflict. Null for a key the
   * gateway makes itself for one message only (a campaign recipient's): it is never compared.
   */
  fingerprint: string | null;
  requestId: string | null;
  /**
   * `until-settled`: the key never expires by time (a campaign recipient's: a campaign may stay paused longer than
   * the TTL, and its redrive must still find the key); the purge removes it once its recipient is settled.
   */
  retention?: "ttl" | "until-settled";
}

export interface IdempotencyStore<Outcome> {
  /**
   * What a statement that reserves a key itself needs of the store (`reservationInsert`'s ttlHours and owner) and where
   * the store's statements run (a pool of their own in the campaign worker, never queued behind commits).
   */
  readonly settings: { ttlHours: number; owner: string | null; sql: Sql };
  reserve(input: ReserveInput): Promise<Reservation<Outcome>>;
  /**
   * Record that the provider call is about to start: from now on the send may have gone out. Only while the
   * reservation is still this call's (in flight, not freed by a repeat after going stale): otherwise it throws
   * `ReservationLostError` and the call must not reach the provider.
   */
  markProviderCall(id: string): Promise<void>;
  /**
   * Store the final outcome (and the provider's message id), inside the caller's transaction, on the reservation
   * this call marked (in flight, or settled `unconfirmed` by a repeat while this call was still committing: the real
   * outcome replaces it; a `sent` is never replaced). False when nothing was written (the reservation is gone, purged
   * after its TTL, or already `sent`): the caller's record still stands.
   */
  complete(sql: Sql, id: string, outcome: Outcome, wamid?: string | null): Promise<boolean>;
  /**
   * Forget the key after a confirmed refusal or a failure before the provider call, so the caller may try again with
   * it. Retried while the database is unavailable (see `releaseRetryMs`).
   */
  release(id: string): Promise<void>;
}

export interface IdempotencyOptions<Outcome> {
  /** How long keys are kept (at least 24 h). */
  ttlHours: number;
  /**
   * An in-flight reservation older than this belongs to a process that died. If it had started the provider
   * call, the send may have gone out, so it is settled as unconfirmed; otherwise it is freed. The only rule for a
   * reservation without an owner; one with an owner is settled as soon as the owner's lease runs out, or at this
   * bound if its live owner takes longer (a call stuck short of the provider).
   */
  staleAfterMs: number;
  /**
   * The outcome of a send that may have gone out unconfirmed: what a stale reservation that reached the provider is
   * settled as, and what a completed key without a readable outcome answers (never a resend).
   */
  unconfirmed: Outcome;
  /**
   * The lease (lease.ts) of the process making the reservations: recorded on each one while the lease is live in the
   * database, so a repeat settles the key as soon as the lease runs out. Absent: reservations carry no owner and only
   * the stale bound settles them.
   */
  owner?: string;
  /**
   * How long `release` keeps trying while the database is unavailable (default 8 s, an accepted send's commit
   * window). The failure that led to the release is often that same outage, and a key left in flight would answer
   * 409 to every repeat until it went stale, although nothing was sent.
   */
  releaseRetryMs?: number;
}

const DEFAULT_RELEASE_RETRY_MS = 8_000;

/**
 * `IdempotencyStore.complete` as one statement, its parameters named by the caller: `id` (the reservation),
 * `outcome` (jsonb text) and `wamid` (text or null). Only on the reservation this call marked (provider_called_at),
 * in flight or settled `unconfirmed` by a repeat; a `sent` is never downgraded. Shared with the accepted send's
 * single commit statement (messages/accepted.ts), which completes the key in the same round trip as the message.
 */
export function completeReservationStatement(id: string, outcome: string, wamid: string): string {
  return `UPDATE idempotency_keys SET state = 'completed', outcome = ${outcome}::jsonb, wamid = COALESCE(${wamid}, wamid), updated_at = now()
          WHERE id = ${id}::bigint AND provider_called_at IS NOT NULL
            AND (state = 'in_flight' OR outcome ->> 'kind' IS DISTINCT FROM 'sent')`;
}

/** The values of a reservation's INSERT, as SQL expressions of the caller's statement. */
export interface ReservationValues {
  accountId: string;
  key: string;
  fingerprint: string;
  requestId: string;
  /** The key's lifetime in hours (the store's `ttlHours`). */
  ttlHours: string;
  /** True: the key never expires by time (ReserveInput.retention `until-settled`). */
  untilSettled: string;
  /** The reserving process's lease (the store's `owner`), or NULL. */
  owner: string;
  /** NULL, or when the provider call started (a reservation made right before it, marked in the same statement). */
  providerCalledAt: string;
  /** A FROM list and condition the row is inserted under (no row: nothing reserved). */
  from?: { list: string; where: string };
}

/**
 * A reservation's INSERT, one place for the store's `reserve` and the send's statement that reads the contact and
 * reserves its key in one round trip (messages/reserve.ts). The owner only while its lease is live: a process whose lease
 * lapsed (the database out of its reach) makes reservations without one, which the stale bound alone settles, instead
 * of ones a repeat would settle at once. A key taken already inserts nothing (ON CONFLICT): RETURNING gives no id.
 */
export function reservationInsert(v: ReservationValues): string {
  return `INSERT INTO idempotency_keys (account_id, key, fingerprint, state, request_id, expires_at, owner, provider_called_at)
    SELECT ${v.accountId}, ${v.key}, ${v.fingerprint}, 'in_flight', ${v.requestId},
      CASE WHEN ${v.untilSettled} THEN 'infinity'::timestamptz ELSE now() + make_interval(hours => ${v.ttlHours}) END,
      (SELECT owner FROM process_leases WHERE owner = ${v.owner} AND expires_at > now()), ${v.providerCalledAt}
    ${v.from ? `FROM ${v.from.list} WHERE ${v.from.where}` : ""}
    ON CONFLICT (account_id, key) DO NOTHING
    RETURNING id::text`;
}

interface ExistingRow {
  id: string;
  fingerprint: string | null;
  state: string;
  outcome: unknown;
  expired: boolean;
  /** In flight past the stale bound. */
  stale: boolean;
  /**
   * Its owner's lease has expired or is gone: the process that reserved it is dead. Never this process's own (it is
   * alive, whatever its lease says after a database outage: its call is still running).
   */
  owner_gone: boolean;
  provider_called: boolean;
  updated_at: Date;
  /** Seconds (rounded up) until the owner's lease runs out or the reservation goes stale, whichever comes first. */
  settleable_in: number;
}

/** A 409 `idempotency_in_flight` with the wait before the answer may change (Retry-After, whole seconds, >= 1). */
function inFlight(retryAfterSeconds: number): ApiError {
  return new ApiError("idempotency_in_flight", { retryAfterSeconds: Math.max(1, retryAfterSeconds) });
}

export function createIdempotencyStore<Outcome>(
  db: Db,
  options: IdempotencyOptions<Outcome>,
): IdempotencyStore<Outcome> {
  const pool = db.sql;

  async function reserve(input: ReserveInput): Promise<Reservation<Outcome>> {
    for (let round = 0; round < 3; round++) {
      const inserted = await pool.query<{ id: string }>({
        name: "idempotency-reserve",
        text: reservationInsert({
          accountId: "$1::uuid",
          key: "$2",
          fingerprint: "$3",
          requestId: "$4",
          ttlHours: "$5",
          untilSettled: "$6",
          owner: "$7::uuid",
          providerCalledAt: "NULL",
        }),
        values: [
          input.accountId,
          input.key,
          input.fingerprint,
          input.requestId,
          options.ttlHours,
          input.retention === "until-settled",
          options.owner ?? null,
        ],
      });
      const first = inserted.rows[0];
      if (first) return { kind: "reserved", id: first.id };

      const { rows } = await pool.query<ExistingRow>({
        name: "idempotency-existing",
        text: `SELECT k.id::text, k.fingerprint, k.state, k.outcome, k.updated_at,
            k.expires_at <= now() AS expired,
            k.updated_at < now() - make_interval(secs => $3 / 1000.0) AS stale,
            k.owner IS NOT NULL AND k.owner IS DISTINCT FROM $4::uuid
              AND (l.expires_at IS NULL OR l.expires_at <= now()) AS owner_gone,
            k.provider_called_at IS NOT NULL AS provider_called,
            ceil(extract(epoch FROM
              LEAST(k.updated_at + make_interval(secs => $3 / 1000.0), l.expires_at) - now()))::int AS settleable_in
          FROM idempotency_keys k LEFT JOIN process_leases l ON l.owner = k.owner
          WHERE k.account_id = $1::uuid AND k.key = $2`,
        values: [input.accountId, input.key, options.staleAfterMs, options.owner ?? null],
      });
      const existing = rows[0];
      if (!existing) continue; // released between our insert and read: try again
      if (existing.expired) {
        // Expired keys are free again; delete only that exact expired row.
        await pool.query({
          name: "idempotency-drop-expired",
          text: `DELETE FROM idempotency_keys WHERE id = $1::bigint AND expires_at <= now()`,
          values: [existing.id],
        });
        continue;
      }
      if (input.fingerprint !== null) {
        if (existing.fingerprint === null) throw new ApiError("idempotency_legacy_unverified");
        if (existing.fingerprint !== input.fingerprint) throw new ApiError("idempotency_conflict");
      }
      // A completed key without an outcome was completed by a release that kept HTTP answers (docs/decisions.md,
      // "Idempotency outcomes"): answered as unconfirmed, never sent again.
      if (existing.state === "completed")
        return { kind: "replay", outcome: (existing.outcome as Outcome | null) ?? options.unconfirmed };
      // Its owner is dead (lease expired or gone), or it is past the stale bound (rows without an owner). An owner that
      // is alive after all (cut off from the database longer than its lease, or slower than the stale bound) cannot
      // send twice because of it: its provider-call mark is conditional on this very row still in flight (a freed row
      // is never reused, so it gets ReservationLostError and never reaches the provider), and its completion replaces
      // the `unconfirmed` settled here with what really happened (`complete`). Both statements below also require the
      // row unchanged since it was read (updated_at), so a mark made meanwhile is seen on the next round.
      if (existing.stale || existing.owner_gone) {
        if (!existing.provider_called) {
          // The process died before reaching the provider: nothing went out, the key is free.
          await pool.query({
            name: "idempotency-free-abandoned",
            text: `DELETE FROM idempotency_keys WHERE id = $1::bigint AND state = 'in_flight' AND updated_at = $2`,
            values: [existing.id, existing.updated_at],
          });
          continue;
        }
        const settled = await pool.query({
          name: "idempotency-settle-abandoned",
          text: `UPDATE idempotency_keys SET state = 'completed', outcome = $2::jsonb, updated_at = now()
            WHERE id = $1::bigint AND state = 'in_flight' AND updated_at = $3`,
          values: [existing.id, JSON.stringify(options.unconfirmed), existing.updated_at],
        });
        if (settled.rowCount === 1) return { kind: "replay", outcome: options.unconfirmed };
        continue;
      }
      throw inFlight(existing.settleable_in);
    }
    // The key changed hands three times while we looked: ask again shortly.
    throw inFlight(1);
  }

  return {
    settings: { ttlHours: options.ttlHours, owner: options.owner ?? null, sql: pool },
    reserve,
    async markProviderCall(id) {
      // A row id is never reused: the row with this id in flight is this call's reservation, and no other.
      const { rowCount } = await pool.query({
        name: "idempotency-provider-call",
        text: `UPDATE idempotency_keys SET provider_called_at = now(), updated_at = now()
          WHERE id = $1::bigint AND state = 'in_flight'`,
        values: [id],
      });
      if (rowCount !== 1) throw new ReservationLostError(id);
    },
    async complete(sql, id, outcome, wamid = null) {
      // Marked by this call (provider_called_at): in flight, or settled unconfirmed by a repeat that found it stale.
      // A `sent` (a status webhook adopted the send, core/src/campaigns/adopt.ts) is never downgraded.
      const { rowCount } = await sql.query({
        name: "idempotency-complete",
        text: completeReservationStatement("$1", "$2", "$3"),
        values: [id, JSON.stringify(outcome), wamid],
      });
      return rowCount === 1;
    },
    async release(id) {
      const deadline = Date.now() + (options.releaseRetryMs ?? DEFAULT_RELEASE_RETRY_MS);
      for (let delay = 100; ; delay = Math.min(delay * 2, 1_000)) {
        try {
          await pool.query({
            name: "idempotency-release",
            text: `DELETE FROM idempotency_keys WHERE id = $1::bigint AND state = 'in_flight'`,
            values: [id],
          });
          return;
        } catch (error) {
          if (!isDatabaseUnavailable(error) || Date.now() + delay > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, delay));
        }
      }
    },
  };
}
