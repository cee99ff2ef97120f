// Redis jobs for deliveries seeded straight into the database, made the way the product makes them: the job
// catalogue's name, payload, options and job id (packages/jobs), added with addBulk in chunks instead of one
// `enqueueDeliveryAttempt` call per delivery.
import { deliverWebhookJob, type WebhookQueue } from "@gw/jobs";
import type { Db } from "@gw/db";

export interface AttemptJob {
  deliveryId: bigint;
  attempt: number;
  /** Like enqueueDeliveryAttempt: 0 = due now. */
  delayMs: number;
}

/** The addBulk entries enqueueDeliveryAttempt would have added one by one. */
export function attemptJobEntries(jobs: AttemptJob[]) {
  return jobs.map((job) => {
    const id = String(job.deliveryId);
    return {
      name: deliverWebhookJob.name,
      data: { deliveryId: id, attempt: job.attempt },
      opts: {
        ...deliverWebhookJob.options,
        jobId: deliverWebhookJob.jobId(id, job.attempt),
        delay: Math.max(0, Math.round(job.delayMs)),
      },
    };
  });
}

export async function addAttemptJobs(queue: WebhookQueue, jobs: AttemptJob[], chunk = 1_000): Promise<void> {
  for (let from = 0; from < jobs.length; from += chunk)
    await queue.addBulk(attemptJobEntries(jobs.slice(from, from + chunk)));
}

/**
 * How the gateway keeps a backlog of pending retries in Redis. The database rows are the same in every design;
 * only this step changes with the design:
 *  - `redis-delayed` (the committed code): every pending retry is one delayed BullMQ job
 *    (`delivery-<id>-attempt-<n>`, delay = next_attempt_at − now), added when the previous attempt failed.
 *  - `horizon` (the scheduling rework): only retries due within the horizon (DISPATCHER_SCHEDULE_HORIZON_MS)
 *    are delayed jobs; later ones wait in PostgreSQL until the dispatcher's sweep queues them.
 *  - `db-only`: nothing in Redis (every retry beyond the horizon, or Redis lost): the sweep queues everything.
 */
export const BACKLOG_SCHEDULING = ["redis-delayed", "horizon", "db-only"] as const;
export type BacklogScheduling = (typeof BACKLOG_SCHEDULING)[number];

/**
 * The Redis side of a retry backlog under `scheduling`: reads the account's pending deliveries back from
 * PostgreSQL (the source of truth) and adds the delayed job each one would have in that design. Returns the
 * number of jobs added.
 */
export async function seedBacklogJobs(
  db: Db,
  queue: WebhookQueue,
  accountId: string,
  scheduling: BacklogScheduling,
  options: { horizonMs: number; onProgress?: (added: number) => void },
): Promise<number> {
  switch (scheduling) {
    case "db-only":
      return 0;
    case "redis-delayed":
      return addDelayedRetryJobs(db, queue, accountId, null, options.onProgress);
    case "horizon":
      return addDelayedRetryJobs(db, queue, accountId, options.horizonMs, options.onProgress);
  }
}

/** One delayed job per pending delivery of the account (due within `horizonMs` from now, when given). */
async function addDelayedRetryJobs(
  db: Db,
  queue: WebhookQueue,
  accountId: string,
  horizonMs: number | null,
  onProgress?: (added: number) => void,
): Promise<number> {
  const page = 10_000;
  const until = horizonMs === null ? null : new Date(Date.now() + horizonMs);
  let after = 0n;
  let added = 0;
  for (;;) {
    const rows = await db.$queryRaw<{ id: bigint; attempt_count: number; next_attempt_at: Date }[]>`
      SELECT id, attempt_count, next_attempt_at FROM deliveries
      WHERE account_id = ${accountId}::uuid AND status = 'pending' AND id > ${after}
        AND (${until}::timestamptz IS NULL OR next_attempt_at <= ${until}::timestamptz)
      ORDER BY id LIMIT ${page}`;
    const last = rows.at(-1);
    if (!last) return added;
    const now = Date.now();
    await addAttemptJobs(
      queue,
      rows.map((r) => ({ deliveryId: r.id, attempt: r.attempt_count + 1, delayMs: r.next_attempt_at.getTime() - now })),
    );
    added += rows.length;
    after = last.id;
    onProgress?.(added);
  }
}
