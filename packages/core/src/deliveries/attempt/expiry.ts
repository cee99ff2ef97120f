import type { Db } from "@gw/db";
import { deliverWebhookJob, type WebhookQueue } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import { releaseAndQueueNext } from "./ordering.ts";
import { ensureAttemptQueued } from "./queueing.ts";
import { SECRET_UNAVAILABLE, type DeliveryErrorKind } from "./error-kinds.ts";

/**
 * The schedule's bound on a delivery's life (spec 6.5). Attempts held back (an open circuit breaker, the in-flight
 * cap, no dispatcher running) spend nothing, so without a bound an endpoint down for a week would keep its
 * deliveries `pending` for a week. Every delivery still `pending` once its budget of automatic attempts started
 * more than `lifetimeMs` ago (`budgetLifetimeMs`: the longest the schedule can take) is failed, as if its attempts
 * had been spent, and waits for a manual retry like any dead letter.
 */
export interface ExpiryDeps {
  db: Db;
  /** Where the failed deliveries' waiting jobs are removed from. */
  queue: WebhookQueue;
  logger: Logger;
}

export interface ExpiryOptions {
  /** `budgetLifetimeMs` of the dispatcher's configured schedule. */
  lifetimeMs: number;
  now?: Date;
  /** Rows failed per statement (one short transaction each). */
  batchSize?: number;
  /** Upper bound of rows failed in one call; the caller runs again when `more`. */
  maxRows?: number;
}

export interface ExpiryResult {
  /** Deliveries failed by this call. */
  expired: number;
  /** The same, per event (the dead-letter metric's label). */
  byEvent: Record<string, number>;
  /** True when the call stopped at maxRows: run again soon. */
  more: boolean;
}

/** `last_error_kind` of a delivery failed by its deadline without any attempt of its current budget. */
const EXPIRED_ERROR_KIND: DeliveryErrorKind = "expired";

interface ExpiredRow {
  id: string;
  integration_id: string;
  event: string;
  attempt_count: number;
  ordering_key: string | null;
}

// Rows locked by someone else (a worker claiming them, another pod's expiry) are skipped, never waited for; the
// outer `status = 'pending'` re-check keeps a row claimed in between out. A delivery that made an attempt in its
// current budget keeps that attempt's status code, body and kind (its last error); one that made none says why
// it failed (`expired`) instead of showing a previous budget's answer, unless what held it back in this budget was
// its signing secret (`secret_unavailable`, recorded after the budget started: every budget reset sets updated_at
// to budget_started_at), which it keeps.
const FAIL_EXPIRED = `
WITH expired AS (
  SELECT id FROM deliveries
  WHERE status = 'pending' AND budget_started_at <= $1
  ORDER BY budget_started_at
  LIMIT $2
  FOR UPDATE SKIP LOCKED
)
UPDATE deliveries d SET status = 'failed', next_attempt_at = NULL, held_since = NULL,
  last_status_code = CASE WHEN d.attempt_count > d.budget_start THEN d.last_status_code END,
  last_error = CASE WHEN d.attempt_count > d.budget_start THEN d.last_error END,
  last_error_kind = CASE WHEN d.attempt_count > d.budget_start
      OR (d.last_error_kind = '${SECRET_UNAVAILABLE}' AND d.updated_at > d.budget_started_at)
    THEN d.last_error_kind ELSE '${EXPIRED_ERROR_KIND}' END,
  updated_at = $3
FROM expired
WHERE d.id = expired.id AND d.status = 'pending'
RETURNING d.id::text, d.integration_id::text AS integration_id, d.event, d.attempt_count, d.ordering_key`;

/** Integration ids named in one log line at most. */
const LOGGED_INTEGRATIONS = 20;

/**
 * Fail the deliveries past their deadline, in batches of `batchSize` (each one statement and its own commit), at
 * most `maxRows` per call. Idempotent and safe with several dispatcher pods at once: a row is failed by exactly one
 * statement (`SKIP LOCKED` plus the status re-check), and only what that statement returned is counted. Their
 * waiting jobs (deferred behind the breaker, or a retry already in Redis) are removed so they stop cycling; one that
 * cannot be removed (running right now) finds the row failed and is skipped.
 */
export async function failExpiredDeliveries(deps: ExpiryDeps, options: ExpiryOptions): Promise<ExpiryResult> {
  const now = options.now ?? new Date();
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 1_000));
  const maxRows = Math.max(1, Math.floor(options.maxRows ?? 50_000));
  const deadline = new Date(now.getTime() - options.lifetimeMs);
  const result: ExpiryResult = { expired: 0, byEvent: {}, more: false };

  while (result.expired < maxRows) {
    const limit = Math.min(batchSize, maxRows - result.expired);
    const { rows } = await deps.db.sql.query<ExpiredRow>({
      name: "fail-expired-deliveries",
      text: FAIL_EXPIRED,
      values: [deadline, limit, now],
    });
    if (rows.length === 0) return result;
    result.expired += rows.length;
    for (const row of rows) result.byEvent[row.event] = (result.byEvent[row.event] ?? 0) + 1;
    deps.logger.warn("deliveries past their retry schedule's deadline failed", {
      expired: rows.length,
      integrations: [...new Set(rows.map((row) => row.integration_id))].slice(0, LOGGED_INTEGRATIONS),
    });
    await removeJobs(deps, rows);
    await releaseNextOfExpired(deps, rows, now);
    if (rows.length < limit) return result;
  }
  result.more = true;
  return result;
}

async function removeJobs(deps: ExpiryDeps, rows: readonly ExpiredRow[]): Promise<void> {
  try {
    // Sent together on the queue's connection (no round trip each); 0 = no such job, or running (locked).
    await Promise.all(rows.map((row) => deps.queue.remove(deliverWebhookJob.jobId(row.id, row.attempt_count + 1))));
  } catch (error) {
    // Committed already: a job left behind finds its row failed and is skipped; a retry promotes it.
    deps.logger.warn("jobs of expired deliveries not removed; they are skipped when they run", {
      count: rows.length,
      error: (error as Error).message,
    });
  }
}

/**
 * Ordered delivery: a dead-lettered head lets the next delivery of its key go (a held one is released and queued;
 * one past its own deadline too is failed by the next batch).
 */
async function releaseNextOfExpired(deps: ExpiryDeps, rows: readonly ExpiredRow[], now: Date): Promise<void> {
  const keys = rows.flatMap((row) =>
    row.ordering_key === null ? [] : [{ integrationId: row.integration_id, orderingKey: row.ordering_key }],
  );
  if (keys.length === 0) return;
  const scheduler = {
    async schedule(deliveryId: string, attempt: number, _at: Date, integrationId?: string) {
      try {
        await ensureAttemptQueued(deps.queue, deliveryId, attempt, 0, integrationId);
      } catch (error) {
        // Released and due now: the sweep queues it.
        deps.logger.warn("released delivery not queued; the sweep will queue it", {
          deliveryId,
          error: (error as Error).message,
        });
      }
    },
  };
  await releaseAndQueueNext({ sql: deps.db.sql, scheduler, logger: deps.logger }, keys, now);
}
