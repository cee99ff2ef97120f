import { Gauge, type Registry } from "prom-client";
import type { WebhookQueue } from "./queues.ts";

/**
 * `gw_webhook_queue_jobs{state}`: the webhook queue's depth read from BullMQ at scrape time, so every pod
 * (API or dispatcher) reports the same shared queue. A failed read leaves the last values.
 */
export function registerQueueDepthGauge(registry: Registry, queue: WebhookQueue): void {
  new Gauge({
    name: "gw_webhook_queue_jobs",
    help: "Jobs na fila de webhooks, por estado",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      const counts = await queue.getJobCounts("waiting", "delayed", "active", "failed").catch(() => null);
      if (!counts) return;
      for (const [state, count] of Object.entries(counts)) this.set({ state }, count);
    },
  });
}
