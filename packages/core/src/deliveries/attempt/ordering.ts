import type { DbTx, Sql } from "@gw/db";
import type { AttemptToQueue, WebhookQueue } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import { ensureAttemptsQueued } from "./queueing.ts";
import type { DeliveryScheduler } from "./scheduling.ts";

/**
 * Ordered delivery (an option per integration, `deliver_in_order`; off by default). Each delivery of such an
 * integration carries an ordering key, and its place in the key is its id (drawn from the deliveries sequence in
 * creation order: a message's statuses are drawn under its wamid lock, in the order they are applied). A delivery is
 * not attempted while an earlier one of the same integration and key is pending or delivering: its claim is given
 * back and it is *held* (`held_since`), its `next_attempt_at` pushed to a re-check time. When a delivery settles
 * (delivered, failed, expired, integration inactive) the key's next one, if held, is *released*: due now and queued
 * at once. Other keys never wait (no head-of-line blocking across messages).
 *
 * Crash safety: PostgreSQL holds everything. A held row keeps a re-check time (the head's next attempt plus
 * `holdRecheckMs`), so the sweep gives it a job again even if its release was never written (a worker killed between
 * recording its result and releasing); a release written but not queued is overdue and the sweep queues it.
 */

/** The ordering key of a message's events (`message.status`): its message id. */
export function messageOrderingKey(messageId: string): string {
  return `m:${messageId}`;
}

/** The ordering key of a contact's inbound messages (`message.received`): the contact's key (phone or BSUID). */
export function contactOrderingKey(contactKey: string): string {
  return `c:${contactKey}`;
}

/** The ordering key of a Pix order's events (`order.updated`, issue 28): the order's id. */
export function orderOrderingKey(orderId: string): string {
  return `o:${orderId}`;
}

/** How long after the head's next attempt a held delivery looks again by itself (when its release was lost). */
export const DEFAULT_HOLD_RECHECK_MS = 60_000;

// The earliest unsettled delivery of the key before this one, locked FOR SHARE so the head cannot settle (and miss
// this hold in its release) until this statement commits: the head's settle waits for the lock, and its release,
// a later statement, then sees the hold. When there is one, the claim is given back and the row held; when there is
// none, a hold left from an earlier turn is cleared (the row proceeds). Locks: the head, then this row (the
// release takes them in the same order: its settle, then the next row).
const HOLD_BEHIND_EARLIER = `
WITH head AS (
  SELECT id, next_attempt_at FROM deliveries
  WHERE integration_id = $2::uuid AND ordering_key = $3 AND id < $1::bigint AND status IN ('pending', 'delivering')
  ORDER BY id
  LIMIT 1
  FOR SHARE
)
UPDATE deliveries d SET
  status = CASE WHEN h.id IS NULL THEN d.status ELSE 'pending' END,
  held_since = CASE WHEN h.id IS NULL THEN NULL ELSE COALESCE(d.held_since, $5) END,
  next_attempt_at = CASE WHEN h.id IS NULL THEN d.next_attempt_at
    ELSE GREATEST(h.next_attempt_at, $5) + $6 * interval '1 millisecond' END,
  updated_at = CASE WHEN h.id IS NULL THEN d.updated_at ELSE $5 END
FROM (SELECT 1) AS one LEFT JOIN head h ON true
WHERE d.id = $1::bigint AND d.status = 'delivering' AND d.attempt_count = $4 - 1
  AND (h.id IS NOT NULL OR d.held_since IS NOT NULL)
RETURNING h.id::text AS head_id, d.next_attempt_at`;

// For each key, its earliest unsettled delivery, when held: due now. Run after the settle committed (never in its
// statement: a hold committed while the settle waited for its lock is only visible to a later statement).
const RELEASE_NEXT = `
UPDATE deliveries d SET held_since = NULL, next_attempt_at = $3, updated_at = $3
FROM (SELECT DISTINCT integration_id, ordering_key FROM unnest($1::uuid[], $2::text[]) AS k(integration_id, ordering_key)) AS k,
  LATERAL (SELECT e.id FROM deliveries e
    WHERE e.integration_id = k.integration_id AND e.ordering_key = k.ordering_key AND e.status IN ('pending', 'delivering')
    ORDER BY e.id LIMIT 1) AS head
WHERE d.id = head.id AND d.status = 'pending' AND d.held_since IS NOT NULL
RETURNING d.id::text, d.integration_id::text AS integration_id, d.attempt_count`;

export interface HeldDelivery {
  /** The earliest unsettled delivery of the key, which this one waits for. */
  headId: string;
  /** When the held delivery looks again by itself (its release normally comes first). */
  recheckAt: Date;
}

/**
 * Inside the claim's turn (the row is `delivering`, claimed for `attempt`): hold it when an earlier delivery of its
 * key is unsettled. Null: it goes ahead.
 */
export async function holdBehindEarlier(
  sql: Sql,
  input: {
    deliveryId: string;
    integrationId: string;
    orderingKey: string;
    attempt: number;
    now: Date;
    recheckMs: number;
  },
): Promise<HeldDelivery | null> {
  const { rows } = await sql.query<{ head_id: string | null; next_attempt_at: Date }>({
    name: "hold-delivery-behind-earlier",
    text: HOLD_BEHIND_EARLIER,
    values: [input.deliveryId, input.integrationId, input.orderingKey, input.attempt, input.now, input.recheckMs],
  });
  const row = rows[0];
  if (!row || row.head_id === null) return null;
  return { headId: row.head_id, recheckAt: row.next_attempt_at };
}

export interface OrderingKeyOf {
  integrationId: string;
  orderingKey: string;
}

export interface ReleasedDelivery {
  id: string;
  integrationId: string;
  /** The attempt the released delivery makes next. */
  attempt: number;
}

/** Release the next delivery of each key, when held (after its predecessor settled). */
export async function releaseNextDeliveries(
  sql: Sql,
  keys: readonly OrderingKeyOf[],
  now: Date,
): Promise<ReleasedDelivery[]> {
  if (keys.length === 0) return [];
  const { rows } = await sql.query<{ id: string; integration_id: string; attempt_count: number }>({
    name: "release-next-deliveries",
    text: RELEASE_NEXT,
    values: [keys.map((k) => k.integrationId), keys.map((k) => k.orderingKey), now],
  });
  return rows.map((row) => ({ id: row.id, integrationId: row.integration_id, attempt: row.attempt_count + 1 }));
}

/**
 * After deliveries settled: release the next of each key and queue them now. Never throws: a release not written
 * is found by the held row's re-check, one not queued by the sweep (it is overdue).
 */
export async function releaseAndQueueNext(
  deps: { sql: Sql; scheduler: DeliveryScheduler; logger: Logger },
  keys: readonly OrderingKeyOf[],
  now: Date,
): Promise<ReleasedDelivery[]> {
  let released: ReleasedDelivery[];
  try {
    released = await releaseNextDeliveries(deps.sql, keys, now);
  } catch (error) {
    deps.logger.warn("held deliveries not released; their re-check releases them", {
      keys: keys.length,
      error: (error as Error).message,
    });
    return [];
  }
  for (const next of released) await deps.scheduler.schedule(next.id, next.attempt, now, next.integrationId);
  return released;
}

/** Held deliveries queued at once when ordering is switched off; the rest are queued by the sweep (due now). */
const QUEUED_ON_SWITCH_OFF = 1_000;

/**
 * Ordering switched off (inside the integration's update): every held delivery of the integration is due now.
 * Returns the first ones to queue after commit (`queueReleasedDeliveries`); the sweep queues any others.
 */
export async function releaseAllHeldDeliveries(
  tx: DbTx,
  input: { integrationId: string; now: Date },
): Promise<AttemptToQueue[]> {
  const rows = await tx.$queryRaw<{ id: string; attempt_count: number }[]>`
    UPDATE deliveries SET held_since = NULL, next_attempt_at = ${input.now}, updated_at = ${input.now}
    WHERE integration_id = ${input.integrationId}::uuid AND ordering_key IS NOT NULL
      AND status IN ('pending', 'delivering') AND held_since IS NOT NULL
    RETURNING id::text, attempt_count`;
  return rows
    .slice(0, QUEUED_ON_SWITCH_OFF)
    .map((row) => ({ deliveryId: row.id, attempt: row.attempt_count + 1, integrationId: input.integrationId }));
}

/** After the commit that released them: their jobs now. A failure is logged; they are due, so the sweep queues them. */
export async function queueReleasedDeliveries(
  deps: { queue?: WebhookQueue | undefined; logger?: Logger | undefined },
  released: readonly AttemptToQueue[],
): Promise<void> {
  if (!deps.queue || released.length === 0) return;
  try {
    await ensureAttemptsQueued(deps.queue, released);
  } catch (error) {
    deps.logger?.warn("released deliveries not queued; the sweep will queue them", {
      count: released.length,
      error: (error as Error).message,
    });
  }
}
