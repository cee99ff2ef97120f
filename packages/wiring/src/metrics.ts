// The metrics of what @gw/wiring builds for every sending process (the API and the campaign worker): the provider's
// calls and answers, and the numbers' pacing. Each process registers them on its own registry (several apps may
// share a process in tests), so the same names mean the same thing on every pod that exports them.
import type { Pacing, PacingObserver } from "@gw/core/throughput";
import { MetaApiError, MetaUnavailableError, MetaUnconfirmedError, graphVersionExpiry } from "@gw/meta";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/**
 * What Meta answered one send: `accepted`; `refused` with our stable code (`recipient_unreachable`,
 * `rate_limited`, `provider_unavailable`...; packages/errors/src/meta.ts); `unconfirmed` with its kind (timeout,
 * network, server_error, bad_response: it may have gone out); `unavailable` with the connection's error code (it
 * never reached Meta).
 */
export function providerAnswer(error: unknown): { result: string; code: string } {
  if (error === null) return { result: "accepted", code: "none" };
  if (error instanceof MetaApiError) return { result: "refused", code: error.reason };
  if (error instanceof MetaUnconfirmedError) return { result: "unconfirmed", code: error.kind };
  if (error instanceof MetaUnavailableError) return { result: "unavailable", code: error.errno ?? "connect_timeout" };
  return { result: "error", code: error instanceof Error ? error.name : "unknown" };
}

/**
 * Wrap the provider client so every call is timed (`gw_provider_request_duration_seconds{operation, outcome}`) and
 * every send is counted by business number and Meta's answer (`gw_provider_sends_total{phone_number_id, result,
 * code}`), without changing what the client does.
 */
export function instrumentProvider<T extends object>(target: T, registry: Registry): T {
  const duration = new Histogram({
    name: "gw_provider_request_duration_seconds",
    help: "Latência das chamadas à API do provedor, por operação e resultado",
    labelNames: ["operation", "outcome"] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
    registers: [registry],
  });
  const sends = new Counter({
    name: "gw_provider_sends_total",
    help: "Envios de mensagem ao provedor, por número comercial e resposta: accepted, refused (code: o código estável da recusa), unconfirmed (code: o tipo; pode ter saído) ou unavailable (code: o erro de conexão; não saiu)",
    labelNames: ["phone_number_id", "result", "code"] as const,
    registers: [registry],
  });
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== "function") return value;
      const operation = String(property);
      return async (...args: unknown[]) => {
        const stop = duration.startTimer({ operation });
        const countSend = (error: unknown) => {
          if (operation === "sendMessage" && typeof args[0] === "string")
            sends.inc({ phone_number_id: args[0], ...providerAnswer(error) });
        };
        try {
          const result: unknown = await (value as (...a: unknown[]) => Promise<unknown>).apply(object, args);
          stop({ outcome: "ok" });
          countSend(null);
          return result;
        } catch (error) {
          stop({ outcome: (error as Error).name ?? "error" });
          countSend(error);
          throw error;
        }
      };
    },
  });
}

/**
 * How sends met their number's pacing, on the process's registry: `gw_pacing_wait_seconds{pacing}` (how long a send
 * waited for its turn; `refuse`: the public API and read receipts, `wait`: campaigns) and
 * `gw_pacing_refusals_total{pacing, reason}` (no turn: the number at its rate, or the recipient spaced out).
 */
export function createPacingMetrics(registry: Registry): PacingObserver {
  const wait = new Histogram({
    name: "gw_pacing_wait_seconds",
    help: "Espera de um envio pela vez do seu número comercial (ritmo por número), por modo: refuse (API pública e confirmações de leitura) ou wait (campanhas)",
    labelNames: ["pacing"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const refusals = new Counter({
    name: "gw_pacing_refusals_total",
    help: "Envios sem vez no ritmo do número, por modo e motivo: number (o número está na sua vazão) ou recipient (destinatário espaçado após o 131056 da Meta)",
    labelNames: ["pacing", "reason"] as const,
    registers: [registry],
  });
  return {
    waited: (pacing: Pacing, waitedMs: number) => wait.observe({ pacing }, waitedMs / 1000),
    refused: (pacing: Pacing, reason: "number" | "recipient") => refusals.inc({ pacing, reason }),
  };
}

/**
 * `gw_meta_api_version_days_left{version}`: the whole days until Meta retires the configured Graph API version
 * (negative once past), read at each scrape; no sample for a version without a published end. The alert
 * GatewayMetaApiVersionExpiring fires below 90 (docs/deploy.md).
 */
export function registerGraphVersionGauge(registry: Registry, version: string, now: () => number = Date.now): void {
  new Gauge({
    name: "gw_meta_api_version_days_left",
    help: "Dias até a Meta desativar a versão da Graph API configurada (META_API_VERSION); negativo depois",
    labelNames: ["version"] as const,
    registers: [registry],
    collect() {
      const expiry = graphVersionExpiry(version, now());
      if (expiry) this.set({ version }, expiry.daysLeft);
    },
  });
}
