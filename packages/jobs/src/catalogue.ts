import { z } from "zod";

/**
 * The typed job catalogue shared by the API (producer) and the dispatcher (consumer).
 * Payloads carry ids only: the processor reloads state from Postgres, the source of truth.
 */
export const QUEUES = {
  webhooks: "webhook-deliveries",
} as const;

export const deliverWebhookJob = {
  name: "deliver-webhook",
  queue: QUEUES.webhooks,
  payload: z.object({
    deliveryId: z.string().regex(/^\d+$/),
    /** The attempt this job performs (1-based, monotonic across manual retries). */
    attempt: z.number().int().min(1),
  }),
  /** One job per attempt: a job id derived from delivery + attempt can never be queued twice. */
  jobId: (deliveryId: string | bigint, attempt: number) => `delivery-${deliveryId}-attempt-${attempt}`,
  options: {
    // Retries are scheduled by the dispatcher itself (its own ±20 % jitter, spec 6.5), one job per attempt;
    // BullMQ's own attempts only cover a crashed worker (stalled-job recovery).
    attempts: 1,
    removeOnComplete: { age: 24 * 3600, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 3600 },
  },
} as const;

export type DeliverWebhookPayload = z.infer<typeof deliverWebhookJob.payload>;
