import type { RequestHandler } from "express";
import { registerQueueDepthGauge, type WebhookQueue } from "@gw/jobs";
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { routeTemplate } from "@gw/http";

/** The API's Prometheus metrics, in a registry of its own (several apps may share a process in tests). */
export function createApiMetrics(queue?: WebhookQueue) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "gw_api_" });
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
    providerDuration: new Histogram({
      name: "gw_provider_request_duration_seconds",
      help: "Latência das chamadas à API do provedor, por operação e resultado",
      labelNames: ["operation", "outcome"] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
      registers: [registry],
    }),
  };
  if (queue) registerQueueDepthGauge(registry, queue);
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

/** Time provider calls by outcome; wraps the adapter without changing what it does. */
export function timedProvider<T extends object>(target: T, metrics: ApiMetrics): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== "function") return value;
      const operation = String(property);
      return async (...args: unknown[]) => {
        const stop = metrics.providerDuration.startTimer({ operation });
        try {
          const result: unknown = await (value as (...a: unknown[]) => Promise<unknown>).apply(object, args);
          stop({ outcome: "ok" });
          return result;
        } catch (error) {
          stop({ outcome: (error as Error).name ?? "error" });
          throw error;
        }
      };
    },
  });
}

/** GET /metrics in Prometheus text format. */
export function metricsHandler(metrics: ApiMetrics): RequestHandler {
  return async (_req, res) => {
    res.setHeader("Content-Type", metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  };
}
