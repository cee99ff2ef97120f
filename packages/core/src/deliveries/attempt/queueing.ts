import {
  deliverWebhookJob,
  enqueueAttempts,
  enqueueDeliveryAttempt,
  type AttemptToQueue,
  type WebhookQueue,
} from "@gw/jobs";

/** Job states in which the attempt will still run (or is running) without our help. */
const LIVE_STATES: ReadonlySet<string> = new Set(["active", "waiting", "delayed", "prioritized", "waiting-children"]);

export type EnsureResult = "queued" | "already_live" | "replaced";

/**
 * Make sure a job for this attempt will run. The job id (delivery + attempt) keeps it idempotent; a finished
 * job with the same id (completed or failed while the row still wants this attempt, e.g. after an
 * "integration_inactive" failure followed by a manual retry) would swallow the add, so it is removed first.
 * Asked for now (`delayMs` 0, a manual retry), a delayed job of the same attempt is promoted rather than left to
 * its time: one deferred behind a circuit breaker that outlived its delivery's deadline (expiry.ts could not
 * remove it) would otherwise hold the retry back for up to a cool-down.
 */
export async function ensureAttemptQueued(
  queue: WebhookQueue,
  deliveryId: bigint | string,
  attempt: number,
  delayMs = 0,
  integrationId?: string,
): Promise<EnsureResult> {
  const jobId = deliverWebhookJob.jobId(String(deliveryId), attempt);
  const existing = await queue.getJob(jobId);
  let replaced = false;
  if (existing) {
    const state = await existing.getState();
    if (state === "delayed" && delayMs <= 0) await promoteQuietly(existing);
    if (LIVE_STATES.has(state)) return "already_live";
    await queue.remove(jobId);
    replaced = true;
  }
  await enqueueDeliveryAttempt(queue, String(deliveryId), attempt, delayMs, integrationId);
  return replaced ? "replaced" : "queued";
}

/** Promote a delayed job; one that moved on meanwhile (it started, or was promoted) is left as it is. */
async function promoteQuietly(job: { promote(): Promise<void> }): Promise<void> {
  try {
    await job.promote();
  } catch {
    // Not delayed any more: it runs anyway.
  }
}

/**
 * `ensureAttemptQueued` for many attempts at once: job existence checked in one Redis pipeline, the missing jobs
 * added with `addBulk`; only attempts whose job id is already taken (a finished job, e.g. after an
 * "integration_inactive" failure) go through `ensureAttemptQueued` one by one.
 */
export async function ensureAttemptsQueued(queue: WebhookQueue, attempts: readonly AttemptToQueue[]): Promise<void> {
  if (attempts.length === 0) return;
  // The queue's own connection (BullMQ's client interface names no EXISTS; runCommand sends any command).
  const pipeline = (await queue.getBackend().client).pipeline();
  for (const a of attempts)
    pipeline.runCommand("exists", [queue.toKey(deliverWebhookJob.jobId(a.deliveryId, a.attempt))]);
  const exists = (await pipeline.exec()) ?? [];
  const taken = attempts.filter((_, index) => exists[index]?.[1] === 1);
  await enqueueAttempts(
    queue,
    attempts.filter((_, index) => exists[index]?.[1] !== 1),
  );
  for (const a of taken) await ensureAttemptQueued(queue, a.deliveryId, a.attempt, a.delayMs, a.integrationId);
}
