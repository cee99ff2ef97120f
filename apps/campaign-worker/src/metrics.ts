import type { CampaignQueue } from "@gw/jobs";
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";

/** Per-worker registry (not the global one), so several workers in one process never collide. */
export function createMetrics(queue: CampaignQueue) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "gw_campaign_worker_" });
  new Gauge({
    name: "gw_campaign_queue_jobs",
    help: "Jobs na fila de campanhas, por estado (um por parte, CAMPAIGN_SHARES, de cada campanha em andamento)",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      const counts = await queue.getJobCounts("waiting", "delayed", "active").catch(() => null);
      if (!counts) return;
      for (const [state, count] of Object.entries(counts)) this.set({ state }, count);
    },
  });
  return {
    registry,
    ticks: new Counter({
      name: "gw_campaign_ticks_total",
      help: "Rodadas de envio de campanhas, pelo resultado (again, completed, paused, cancelled, failed...)",
      labelNames: ["result"] as const,
      registers: [registry],
    }),
    sent: new Counter({
      name: "gw_campaign_messages_sent_total",
      help: "Mensagens de campanhas aceitas pelo provedor",
      registers: [registry],
    }),
  };
}
