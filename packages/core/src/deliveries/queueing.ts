import { deliverWebhookJob, enqueueDeliveryAttempt, type WebhookQueue } from "@gw/jobs";

/** Job states in which the attempt will still run (or is running) without our help. */
const LIVE_STATES: ReadonlySet<string> = new Set(["active", "waiting", "delayed", "prioritized", "waiting-children"]);

export type EnsureResult = "queued" | "already_live" | "replaced";

/**
 * Make sure a job for this attempt will run. The job id (delivery + attempt) keeps it idempotent; a finished
 * job with the same id (completed or failed while the row still wants this attempt, e.g. after an
 * "integration_inactive" failure followed by a manual retry) would swallow the add, so it is removed first.
 */
export async function ensureAttemptQueued(
  queue: WebhookQueue,
  deliveryId: bigint | string,
  attempt: number,
  delayMs = 0,
): Promise<EnsureResult> {
  const jobId = deliverWebhookJob.jobId(String(deliveryId), attempt);
  const existing = await queue.getJob(jobId);
  let replaced = false;
  if (existing) {
    const state = await existing.getState();
    if (LIVE_STATES.has(state)) return "already_live";
    await queue.remove(jobId);
    replaced = true;
  }
  await enqueueDeliveryAttempt(queue, String(deliveryId), attempt, delayMs);
  return replaced ? "replaced" : "queued";
}
