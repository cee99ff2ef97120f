import { registerQueueDepthGauge, type WebhookQueue } from "@gw/jobs";
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** Per-dispatcher registry (not the global one), so several dispatchers in one process never collide. */
export function createMetrics(queue: WebhookQueue) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "gw_dispatcher_" });
  registerQueueDepthGauge(registry, queue);
  return {
    registry,
    attempts: new Counter({
      name: "gw_webhook_attempts_total",
      help: "Tentativas de entrega de webhook, por evento e resultado",
      labelNames: ["event", "outcome", "error_kind"] as const,
      registers: [registry],
    }),
    deadLetters: new Counter({
      name: "gw_webhook_dead_letters_total",
      help: "Entregas que esgotaram as tentativas automáticas (ou cuja integração está inativa) e foram para failed",
      labelNames: ["event"] as const,
      registers: [registry],
    }),
    attemptDuration: new Histogram({
      name: "gw_webhook_attempt_duration_seconds",
      help: "Duração das tentativas HTTP de entrega de webhook",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    skipped: new Counter({
      name: "gw_webhook_jobs_skipped_total",
      help: "Jobs descartados porque a entrega não esperava aquela tentativa",
      labelNames: ["reason"] as const,
      registers: [registry],
    }),
    requeued: new Counter({
      name: "gw_webhook_reconciled_total",
      help: "Entregas sem job ativo recolocadas na fila pelo reconciliador",
      registers: [registry],
    }),
  };
}

export type DispatcherMetrics = ReturnType<typeof createMetrics>;
