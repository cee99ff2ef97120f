import type { RunningCampaignsProgress } from "@gw/core/campaigns";
import { registerMemoryLimitGauge, type CampaignQueue } from "@gw/jobs";
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";

/** What the gauges read from the database at scrape time. */
export interface MetricSources {
  /** Running campaigns, their accepted recipients and those still to send. */
  runningCampaigns(): Promise<RunningCampaignsProgress>;
}

/**
 * Per-worker registry (not the global one), so several workers in one process never collide. The provider's and the
 * pacing's metrics are registered on it by their builders (`instrumentProvider`, `createPacingMetrics`: @gw/wiring).
 */
export function createMetrics(queue: CampaignQueue, sources: MetricSources) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "gw_campaign_worker_" });
  registerMemoryLimitGauge(registry);
  // Both gauges below share one read per scrape (a scrape collects every metric at once); a failed read leaves the
  // last values.
  let reading: Promise<RunningCampaignsProgress | null> | null = null;
  const readRunning = () =>
    (reading ??= sources
      .runningCampaigns()
      .catch(() => null)
      .finally(() => {
        reading = null;
      }));
  new Gauge({
    name: "gw_campaigns_running",
    help: "Campanhas em andamento (status running), em todo o PostgreSQL",
    registers: [registry],
    async collect() {
      const progress = await readRunning();
      if (progress) this.set(progress.campaigns);
    },
  });
  new Gauge({
    name: "gw_campaign_recipients",
    help: "Destinatários das campanhas em andamento, em todo o PostgreSQL: accepted (todos os aceitos) e remaining (na fila ou sendo enviados); o progresso é 1 - remaining/accepted",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      const progress = await readRunning();
      if (!progress) return;
      this.set({ state: "accepted" }, progress.recipients);
      this.set({ state: "remaining" }, progress.remaining);
    },
  });
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
