import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import {
  deliverFirstAttemptsJob,
  deliverWebhookJob,
  type DeliverFirstAttemptsPayload,
  type DeliverWebhookPayload,
} from "./catalogue.ts";

type WebhookJobData = DeliverWebhookPayload | DeliverFirstAttemptsPayload;
export type WebhookQueue = Queue<WebhookJobData, unknown, string>;

/**
 * How many entries BullMQ keeps in the queue's events stream. Nothing of ours reads it (no QueueEvents; Bull Board
 * reads the jobs), so it is kept short: it only costs memory, and a trimmed stream stays a few kilobytes.
 */
const EVENTS_KEPT = 100;

/** The webhook delivery queue; `prefix` keeps environments (and parallel test files) apart in one Redis. */
export function createWebhookQueue(connection: Redis, prefix: string): WebhookQueue {
  return new Queue<WebhookJobData, unknown, string>(deliverWebhookJob.queue, {
    connection,
    prefix,
    streams: { events: { maxLen: EVENTS_KEPT } },
  });
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

/** A freshly committed delivery, as the outbox hands it over after commit. */
export interface FirstAttemptToQueue {
  deliveryId: string;
  integrationId: string;
  traceparent?: string | null | undefined;
  /** The first delivery of the job that carries this one with others of its commit; null: a job of its own. */
  batchId: string | null;
}

/**
 * The first attempt of freshly committed deliveries (the outbox, after commit), in one Redis round trip: one job per
 * batch (`deliverFirstAttemptsJob`, the deliveries of one integration that the commit gave the same `batchId`), one
 * `deliverWebhookJob` per delivery without one. Each job names its integration, so the dispatcher's fairness gate
 * can defer it before any query. Idempotent: the job ids are derived from the rows.
 */
export async function enqueueFirstAttempts(
  queue: WebhookQueue,
  deliveries: readonly FirstAttemptToQueue[],
): Promise<void> {
  const batches = new Map<string, FirstAttemptToQueue[]>();
  const single: AttemptToQueue[] = [];
  for (const delivery of deliveries) {
    if (delivery.batchId === null) {
      single.push({
        deliveryId: delivery.deliveryId,
        attempt: 1,
        integrationId: delivery.integrationId,
        traceparent: delivery.traceparent,
      });
      continue;
    }
    const batch = batches.get(delivery.batchId);
    if (batch) batch.push(delivery);
    else batches.set(delivery.batchId, [delivery]);
  }
  const jobs = [
    ...single.map(jobOf),
    ...[...batches].map(([batchId, members]) => firstAttemptsJobOf(batchId, members)),
  ];
  for (let start = 0; start < jobs.length; start += 500) await queue.addBulk(jobs.slice(start, start + 500));
}

function firstAttemptsJobOf(batchId: string, members: readonly FirstAttemptToQueue[]) {
  const [first] = members;
  const traces = members.map((m) => m.traceparent ?? null);
  const data: DeliverFirstAttemptsPayload = {
    integrationId: first?.integrationId ?? "",
    deliveryIds: members.map((m) => m.deliveryId),
    ...(traces.some((t) => t !== null) ? { traceparents: traces } : {}),
  };
  return {
    name: deliverFirstAttemptsJob.name,
    data,
    opts: { ...deliverFirstAttemptsJob.options, jobId: deliverFirstAttemptsJob.jobId(batchId), delay: 0 },
  };
}
