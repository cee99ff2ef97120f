import type { Db } from "@gw/db";
import {
  deliverFirstAttemptsJob,
  deliverWebhookJob,
  enqueueAttempts,
  type AttemptToQueue,
  type Redis,
  type WebhookQueue,
} from "@gw/jobs";
import type { Logger } from "@gw/logger";
import { ensureAttemptQueued } from "./queueing.ts";

/**
 * Where delivery attempts wait. PostgreSQL holds every delivery's next attempt (`next_attempt_at`); Redis holds
 * only the jobs due within the horizon. A retry due later (10 min, 1 h, 6 h, 24 h: spec 6.5) stays in
 * PostgreSQL until the sweep moves it to Redis shortly before it is due, so a backlog of a million delayed
 * deliveries costs PostgreSQL rows, not Redis memory, and Redis is never the only copy of anything.
 */
export interface DeliveryScheduler {
  /** The attempt will run at `at` (the row's next_attempt_at is already committed). */
  schedule(deliveryId: string, attempt: number, at: Date, integrationId?: string): Promise<void>;
}

export interface SchedulerOptions {
  queue: WebhookQueue;
  logger: Logger;
  /** Attempts due within this time go to Redis at once; later ones wait for the sweep. */
  horizonMs: number;
  /**
   * Jobs waiting in Redis (waiting + delayed) above which retries stay in PostgreSQL for the sweep, so a storm of
   * failures (an integrator down with a million deliveries) cannot grow Redis without bound.
   */
  maxQueued?: number;
}

/** How long the queue's size is trusted between reads (one Redis call per second at most, not per retry). */
const QUEUE_SIZE_TTL_MS = 1_000;

export function createDeliveryScheduler(options: SchedulerOptions): DeliveryScheduler {
  let size = { value: 0, readAt: 0 };
  async function queueFull(): Promise<boolean> {
    if (options.maxQueued === undefined) return false;
    if (Date.now() - size.readAt > QUEUE_SIZE_TTL_MS) {
      size = { value: await jobsWaiting(options.queue), readAt: Date.now() };
    }
    size.value++;
    return size.value > options.maxQueued;
  }
  return {
    async schedule(deliveryId, attempt, at, integrationId) {
      const delayMs = at.getTime() - Date.now();
      if (delayMs > options.horizonMs) return;
      try {
        // Full: the row is pending with next_attempt_at set, and the sweep queues it when there is room.
        if (await queueFull()) return;
        await ensureAttemptQueued(options.queue, deliveryId, attempt, delayMs, integrationId);
      } catch (error) {
        // The row is pending with next_attempt_at set: the sweep queues it once Redis answers.
        options.logger.warn("next attempt not queued; the sweep will queue it", {
          deliveryId,
          attempt,
          error: (error as Error).message,
        });
      }
    },
  };
}

export interface SweepDeps {
  db: Db;
  queue: WebhookQueue;
  /** The queue's Redis connection (job existence is checked for a whole page in one pipeline). */
  redis: Redis;
  logger: Logger;
  /** Per-attempt deadline: a `delivering` row older than this (plus grace) lost its worker. */
  attemptTimeoutMs: number;
}

export interface SweepOptions {
  now?: Date;
  /** Pending rows due up to this far ahead get their job now (with the remaining delay). */
  horizonMs: number;
  /**
   * How late a due row may be before the sweep queues it: within it the producer (the API after its commit, the
   * dispatcher after an attempt) is expected to have queued it; past it, its job counts as lost.
   */
  graceMs: number;
  /** Rows examined per batch; the sweep repeats at once while batches come back full. */
  batchSize?: number;
  /** Upper bound of rows examined in one sweep, for each of its two ranges (overdue, about to be due). */
  maxRows?: number;
  /** Jobs waiting in Redis above which the sweep adds none (the queue drains first). */
  maxQueued?: number;
}

export interface SweepResult {
  /** Rows that needed a job and were looked at. */
  scanned: number;
  /** Rows whose job was missing (or finished) and was queued (again). */
  queued: number;
  /** True when the sweep stopped at maxRows or maxQueued: run again soon. */
  more: boolean;
}

interface Candidate {
  id: string;
  integration_id: string;
  attempt_count: number;
  next_attempt_at: Date;
  overdue: boolean;
  /** The job that carries its first attempt with others of its commit (deliveries.batch_id); null: its own. */
  batch_id: string | null;
}

/**
 * Make sure every pending delivery overdue past the grace period or due within the horizon, and every delivery
 * stuck in `delivering` (its worker died), has a live job: after a Redis FLUSHALL, a lost enqueue, a retry kept in
 * PostgreSQL until it is near, or a job that finished without updating the row. Reads through the `(status, next_attempt_at)` index in keyset
 * pages and checks job existence for a whole page in one Redis round trip; only rows already overdue past the
 * grace period pay for a state check. Idempotent: the job id is derived from delivery + attempt.
 */
export async function sweepDeliveries(deps: SweepDeps, options: SweepOptions): Promise<SweepResult> {
  const now = options.now ?? new Date();
  const batchSize = options.batchSize ?? 1_000;
  const maxRows = options.maxRows ?? 50_000;
  const result: SweepResult = { scanned: 0, queued: 0, more: false };
  const until = new Date(now.getTime() + options.horizonMs);
  const overdueBefore = new Date(now.getTime() - options.graceMs);
  const stuckBefore = new Date(now.getTime() - deps.attemptTimeoutMs - options.graceMs);

  const room = { left: await queueRoom(deps.queue, options.maxQueued) };
  // Overdue rows (past the grace the producer has to queue them itself), then rows about to be due (retries kept
  // in PostgreSQL entering the horizon, queued with the rest of their delay).
  const overdue = await sweepRange(deps, result, room, {
    from: null,
    to: overdueBefore,
    now,
    overdueBefore,
    batchSize,
    maxRows,
  });
  // Always, with a budget of its own: a long overdue backlog whose jobs are live (an integration's deliveries
  // deferred by its breaker) must not keep other deliveries' retries from being queued when they come due.
  const upcoming = await sweepRange(deps, result, room, {
    from: now,
    to: until,
    now,
    overdueBefore,
    batchSize,
    maxRows: result.scanned + maxRows,
  });
  result.more = !overdue || !upcoming;

  // Rows claimed by a worker that died mid-attempt (rare): the attempt runs again.
  const stuck = await deps.db.sql.query<Candidate>({
    name: "sweep-stuck-deliveries",
    text: `SELECT id::text, integration_id::text, attempt_count, $3::timestamptz AS next_attempt_at, true AS overdue,
        batch_id::text
      FROM deliveries WHERE status = 'delivering' AND updated_at <= $1 ORDER BY updated_at LIMIT $2`,
    values: [stuckBefore, batchSize, now],
  });
  result.scanned += stuck.rows.length;
  result.queued += await queueMissing(deps, stuck.rows, now);
  if (result.queued > 0)
    deps.logger.info("deliveries without a live job queued", { queued: result.queued, scanned: result.scanned });
  return result;
}

/**
 * Keyset pages of pending rows with `from < next_attempt_at <= to`, each page's missing jobs queued. Returns true
 * when the range was covered, false when it stopped at maxRows or for lack of room in the queue.
 */
async function sweepRange(
  deps: SweepDeps,
  result: SweepResult,
  room: { left: number },
  range: { from: Date | null; to: Date; now: Date; overdueBefore: Date; batchSize: number; maxRows: number },
): Promise<boolean> {
  let after: { at: Date | string; id: string } = {
    at: range.from ?? "-infinity",
    id: range.from ? "9223372036854775807" : "0",
  };
  while (result.scanned < range.maxRows && room.left > 0) {
    const limit = Math.min(range.batchSize, room.left, range.maxRows - result.scanned);
    const { rows }: { rows: Candidate[] } = await deps.db.sql.query<Candidate>({
      name: "sweep-pending-deliveries",
      text: `SELECT id::text, integration_id::text, attempt_count, next_attempt_at, next_attempt_at <= $5 AS overdue,
          batch_id::text
        FROM deliveries
        WHERE status = 'pending' AND next_attempt_at >= $1::timestamptz AND next_attempt_at <= $3
          AND (next_attempt_at, id) > ($1::timestamptz, $2::bigint)
        ORDER BY next_attempt_at, id
        LIMIT $4`,
      values: [after.at, after.id, range.to, limit, range.overdueBefore],
    });
    result.scanned += rows.length;
    const queued = await queueMissing(deps, rows, range.now);
    result.queued += queued;
    room.left -= queued;
    const last: Candidate | undefined = rows.at(-1);
    if (!last || rows.length < limit) return true;
    after = { at: last.next_attempt_at, id: last.id };
  }
  return false;
}

/** A ZSCORE reply that found the member. */
function isScored(reply: [Error | null, unknown] | undefined): boolean {
  return reply !== undefined && reply[1] !== null && reply[1] !== undefined;
}

/** Jobs Redis holds that have yet to run (what DISPATCHER_MAX_QUEUED_JOBS bounds). */
async function jobsWaiting(queue: WebhookQueue): Promise<number> {
  const counts = await queue.getJobCounts("waiting", "delayed", "prioritized");
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

async function queueRoom(queue: WebhookQueue, maxQueued: number | undefined): Promise<number> {
  if (maxQueued === undefined) return Number.POSITIVE_INFINITY;
  return maxQueued - (await jobsWaiting(queue));
}

/**
 * The jobs that may carry a row's next attempt: its own (`delivery-<id>-attempt-<n>`) and, for a first attempt sent
 * with others of its commit, their job (`deliveries-<batch_id>-attempt-1`).
 */
function jobsOf(row: Candidate): string[] {
  const attempt = row.attempt_count + 1;
  const own = deliverWebhookJob.jobId(row.id, attempt);
  return attempt === 1 && row.batch_id !== null ? [own, deliverFirstAttemptsJob.jobId(row.batch_id)] : [own];
}

/**
 * Queue the rows that no job will attempt; for overdue rows whose job exists, check that it is still live. Both
 * checks of a whole page take one Redis round trip: overdue rows with a live job (a backlog deferred by an
 * integration's breaker or cap stays overdue for long) cost no further call. A row is covered by its own job or by
 * its batch's; one whose jobs are all missing gets its own job, one whose own job finished gets it again.
 */
async function queueMissing(deps: SweepDeps, rows: readonly Candidate[], now: Date): Promise<number> {
  if (rows.length === 0) return 0;
  const pipeline = deps.redis.pipeline();
  // Per row, per job: where its EXISTS reply is, and (overdue rows) its two ZSCORE replies.
  const replyAt: number[][] = [];
  let replies = 0;
  for (const row of rows) {
    const positions: number[] = [];
    for (const jobId of jobsOf(row)) {
      positions.push(replies);
      pipeline.exists(deps.queue.toKey(jobId));
      replies++;
      if (row.overdue) {
        // A finished job (completed or failed for good) holding the id would never run the attempt.
        pipeline.zscore(deps.queue.toKey("completed"), jobId).zscore(deps.queue.toKey("failed"), jobId);
        replies += 2;
      }
    }
    replyAt.push(positions);
  }
  const results = (await pipeline.exec()) ?? [];
  const exists = (at: number) => results[at]?.[1] === 1;
  const finished = (row: Candidate, at: number) =>
    row.overdue && (isScored(results[at + 1]) || isScored(results[at + 2]));
  const missing: AttemptToQueue[] = [];
  let queued = 0;
  for (const [index, row] of rows.entries()) {
    const attempt = row.attempt_count + 1;
    const [ownAt = 0, ...batchAt] = replyAt[index] ?? [];
    if (exists(ownAt) && !finished(row, ownAt)) continue;
    if (batchAt.some((at) => exists(at) && !finished(row, at))) continue;
    if (!exists(ownAt)) {
      missing.push({
        deliveryId: row.id,
        attempt,
        delayMs: Math.max(0, row.next_attempt_at.getTime() - now.getTime()),
        integrationId: row.integration_id,
      });
    } else if ((await ensureAttemptQueued(deps.queue, row.id, attempt, 0, row.integration_id)) !== "already_live") {
      queued++;
    }
  }
  await enqueueAttempts(deps.queue, missing);
  return queued + missing.length;
}

/**
 * Age in seconds of the oldest delivery that is due and still pending (its `next_attempt_at` passed), 0 when none,
 * by the database's clock: one read of the `(status, next_attempt_at)` index. Deliveries waiting on an open breaker
 * or for dispatchers count; deliveries parked by endpoint health (no next attempt) and retries not yet due do not.
 */
export async function oldestDueDeliveryAgeSeconds(deps: { db: Db }): Promise<number> {
  const { rows } = await deps.db.sql.query<{ age: number | null }>({
    name: "oldest-due-delivery-age",
    text: `SELECT EXTRACT(EPOCH FROM now() - min(next_attempt_at))::float8 AS age FROM deliveries
      WHERE status = 'pending' AND next_attempt_at < now()`,
  });
  return Math.max(0, rows[0]?.age ?? 0);
}
