import type { RequestHandler } from "express";
import { registerMemoryLimitGauge, registerQueueDepthGauge, type WebhookQueue } from "@gw/jobs";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { routeTemplate } from "@gw/http";

/** What the API's gauges read at scrape time. */
export interface ApiMetricSources {
  /** Accepted sends waiting in the send journal (a Redis list shared by the pods). */
  journalEntries(): Promise<number>;
}

/**
 * The API's Prometheus metrics, in a registry of its own (several apps may share a process in tests). The provider's
 * and the pacing's are registered on it by their builders (`instrumentProvider`, `createPacingMetrics`: @gw/wiring).
 */
export function createApiMetrics(queue?: WebhookQueue, sources?: ApiMetricSources) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "gw_api_" });
  registerMemoryLimitGauge(registry);
  const metrics = {
    registry,
    httpRequests: new Counter({
      name: "gw_http_requests_total",
      help: "Requisições HTTP atendidas, por rota e status",
      labelNames: ["method", "route", "status"] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: "gw_http_request_duration_seconds",
      help: "Latência das requisições HTTP, por rota",
      labelNames: ["method", "route"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    sends: new Counter({
      name: "gw_message_sends_total",
      help: "Envios de mensagem, por resultado (sent, replayed ou o código de erro)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    providerItemsQuarantined: new Counter({
      name: "gw_provider_webhook_items_quarantined_total",
      help: "Itens de webhooks do provedor deixados de lado (malformados ou que falharam), guardados no evento bruto",
      registers: [registry],
    }),
    providerWebhookBatch: new Histogram({
      name: "gw_provider_webhook_batch_payloads",
      help: "Webhooks do provedor aplicados juntos, em uma transação (group commit), por lote",
      buckets: [1, 2, 4, 8, 16, 32, 64, 128],
      registers: [registry],
    }),
    sendJournal: new Counter({
      name: "gw_send_journal_total",
      help: "Envios aceitos pelo provedor gravados no diário (journaled) ou reaplicados dele no PostgreSQL (replayed)",
      labelNames: ["operation"] as const,
      registers: [registry],
    }),
    providerWebhookLag: new Histogram({
      name: "gw_provider_webhook_lag_seconds",
      help: "Atraso da ingestão dos webhooks do provedor: do carimbo de tempo da Meta no status ou mensagem mais antigo do webhook até a sua gravação",
      buckets: [1, 2, 5, 10, 30, 60, 120, 300, 900, 3600, 21600, 86400],
      registers: [registry],
    }),
  };
  if (queue) registerQueueDepthGauge(registry, queue);
  if (sources) {
    // LLEN at scrape time: every API pod reports the same shared journal. A failed read leaves the last value.
    new Gauge({
      name: "gw_send_journal_entries",
      help: "Envios aceitos pela Meta à espera no diário (o PostgreSQL não os gravou) para serem gravados; devem voltar a 0 em minutos",
      registers: [registry],
      async collect() {
        const entries = await sources.journalEntries().catch(() => null);
        if (entries !== null) this.set(entries);
      },
    });
  }
  return metrics;
}

export type ApiMetrics = ReturnType<typeof createApiMetrics>;

/** Count and time every request under its route template (not the raw path: ids would explode the labels). */
export function httpMetrics(metrics: ApiMetrics): RequestHandler {
  return (req, res, next) => {
    const stop = metrics.httpDuration.startTimer();
    res.on("finish", () => {
      const route = routeTemplate(req) ?? "unmatched";
      stop({ method: req.method, route });
      metrics.httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
}

/** GET /metrics in Prometheus text format. */
export function metricsHandler(metrics: ApiMetrics): RequestHandler {
  return async (_req, res) => {
    res.setHeader("Content-Type", metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  };
}
