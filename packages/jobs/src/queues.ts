import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { deliverWebhookJob, type DeliverWebhookPayload } from "./catalogue.ts";

export type WebhookQueue = Queue<DeliverWebhookPayload, unknown, string>;

/** The webhook delivery queue; `prefix` keeps environments (and parallel test files) apart in one Redis. */
export function createWebhookQueue(connection: Redis, prefix: string): WebhookQueue {
  return new Queue<DeliverWebhookPayload, unknown, string>(deliverWebhookJob.queue, { connection, prefix });
}

/** Queue one attempt of a delivery. Idempotent: the job id is derived from delivery + attempt. */
export async function enqueueDeliveryAttempt(
  queue: WebhookQueue,
  deliveryId: bigint | string,
  attempt: number,
  delayMs = 0,
): Promise<void> {
  const id = String(deliveryId);
  await queue.add(
    deliverWebhookJob.name,
    { deliveryId: id, attempt },
    {
      ...deliverWebhookJob.options,
      jobId: deliverWebhookJob.jobId(id, attempt),
      delay: Math.max(0, Math.round(delayMs)),
    },
  );
}
