import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { deliverWebhookJob, type DeliverWebhookPayload } from "./catalogue.ts";

export type WebhookQueue = Queue<DeliverWebhookPayload, unknown, string>;

/** The webhook delivery queue; `prefix` keeps environments (and parallel test files) apart in one Redis. */
export function createWebhookQueue(connection: Redis, prefix: string): WebhookQueue {
  return new Queue<DeliverWebhookPayload, unknown, string>(deliverWebhookJob.queue, { connection, prefix });
}

export interface AttemptToQueue {
  deliveryId: string;
  attempt: number;
  delayMs?: number;
  /** The delivery's integration, when known (lets the dispatcher defer the job without a query). */
  integrationId?: string | undefined;
  /** The delivery's trace context, when known (the job carries its trace; the row keeps it too). */
  traceparent?: string | null | undefined;
}

function jobOf({ deliveryId, attempt, delayMs = 0, integrationId, traceparent }: AttemptToQueue) {
  const data: DeliverWebhookPayload = {
    deliveryId,
    attempt,
    ...(integrationId === undefined ? {} : { integrationId }),
    ...(traceparent ? { traceparent } : {}),
  };
  return {
    name: deliverWebhookJob.name,
    data,
    opts: {
      ...deliverWebhookJob.options,
      jobId: deliverWebhookJob.jobId(deliveryId, attempt),
      delay: Math.max(0, Math.round(delayMs)),
    },
  };
}

/** Queue one attempt of a delivery. Idempotent: the job id is derived from delivery + attempt. */
export async function enqueueDeliveryAttempt(
  queue: WebhookQueue,
  deliveryId: bigint | string,
  attempt: number,
  delayMs = 0,
  integrationId?: string,
): Promise<void> {
  const job = jobOf({ deliveryId: String(deliveryId), attempt, delayMs, integrationId });
  await queue.add(job.name, job.data, job.opts);
}

/** Queue many attempts in one Redis round trip (per chunk). Idempotent like `enqueueDeliveryAttempt`. */
export async function enqueueAttempts(
  queue: WebhookQueue,
  attempts: readonly AttemptToQueue[],
  chunkSize = 500,
): Promise<void> {
  for (let start = 0; start < attempts.length; start += chunkSize) {
    await queue.addBulk(attempts.slice(start, start + chunkSize).map(jobOf));
  }
}

/**
 * The first attempt of freshly committed deliveries (the outbox, after commit). Each job names its integration, so
 * the dispatcher's fairness gate can defer it before any query.
 */
export function enqueueFirstAttempts(
  queue: WebhookQueue,
  deliveries: readonly { deliveryId: string; integrationId: string; traceparent?: string | null | undefined }[],
): Promise<void> {
  return enqueueAttempts(
    queue,
    deliveries.map(({ deliveryId, integrationId, traceparent }) => ({
      deliveryId,
      attempt: 1,
      integrationId,
      traceparent,
    })),
  );
}
