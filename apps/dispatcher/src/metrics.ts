import { registerMemoryLimitGauge, registerQueueDepthGauge, type WebhookQueue } from "@gw/jobs";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** What the gauges read from the database at scrape time. */
export interface MetricSources {
  /** Age in seconds of the oldest status parked in early_statuses, 0 when none. */
  oldestEarlyStatusAgeSeconds(): Promise<number>;
  /** Age in seconds of the oldest delivery due and still pending, 0 when none. */
  oldestDueDeliveryAgeSeconds(): Promise<number>;
  /** Integrations whose circuit breaker is open in this process (the fairness gate's count). */
  openBreakers(): number;
}

/** Per-dispatcher registry (not the global one), so several dispatchers in one process never collide. */
export function createMetrics(queue: WebhookQueue, sources: MetricSources) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "gw_dispatcher_" });
  registerMemoryLimitGauge(registry);
  registerQueueDepthGauge(registry, queue);
  // Read at scrape time through the early_statuses(received_at) index; a failed read leaves the last value.
  new Gauge({
    name: "gw_early_status_oldest_age_seconds",
    help: "Idade em segundos do status antecipado mais antigo ainda estacionado (mensagem ainda não gravada); 0 sem nenhum",
    registers: [registry],
    async collect() {
      const age = await sources.oldestEarlyStatusAgeSeconds().catch(() => null);
      if (age !== null) this.set(age);
    },
  });
  // Read at scrape time through the deliveries(status, next_attempt_at) index; a failed read leaves the last value.
  new Gauge({
    name: "gw_webhook_delivery_oldest_due_age_seconds",
    help: "Idade em segundos da entrega pendente mais antiga já vencida (next_attempt_at passado), em todo o PostgreSQL; 0 sem nenhuma",
    registers: [registry],
    async collect() {
      const age = await sources.oldestDueDeliveryAgeSeconds().catch(() => null);
      if (age !== null) this.set(age);
    },
  });
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
      help: "Entregas que foram para failed: esgotaram as tentativas automáticas, passaram do prazo do cronograma de tentativas ou a integração está inativa",
      labelNames: ["event"] as const,
      registers: [registry],
    }),
    expired: new Counter({
      name: "gw_webhook_deliveries_expired_total",
      help: "Entregas que foram para failed porque o prazo do cronograma de tentativas passou enquanto aguardavam (por exemplo, com o disjuntor aberto); também contadas em gw_webhook_dead_letters_total",
      labelNames: ["event"] as const,
      registers: [registry],
    }),
    statementBatch: new Histogram({
      name: "gw_dispatcher_statement_batch_attempts",
      help: "Tentativas servidas por uma instrução de reserva (claim) ou de resultado (record), por instrução",
      labelNames: ["statement"] as const,
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers: [registry],
    }),
    attemptDuration: new Histogram({
      name: "gw_webhook_attempt_duration_seconds",
      help: "Duração das tentativas HTTP de entrega de webhook",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    // Per integration: one series per integration (and outcome) that had an attempt on this pod; fewer buckets than
    // the fleet-wide histogram above, to keep the series per integration few.
    integrationAttempts: new Counter({
      name: "gw_webhook_integration_attempts_total",
      help: "Tentativas HTTP de entrega de webhook por integração e resultado: delivered, retry_scheduled ou failed (esgotou as tentativas)",
      labelNames: ["integration_id", "outcome"] as const,
      registers: [registry],
    }),
    integrationAttemptDuration: new Histogram({
      name: "gw_webhook_integration_attempt_duration_seconds",
      help: "Duração das tentativas HTTP de entrega de webhook, por integração",
      labelNames: ["integration_id"] as const,
      buckets: [0.1, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    skipped: new Counter({
      name: "gw_webhook_jobs_skipped_total",
      help: "Jobs descartados porque a entrega não esperava aquela tentativa",
      labelNames: ["reason"] as const,
      registers: [registry],
    }),
    deferred: new Counter({
      name: "gw_webhook_jobs_deferred_total",
      help: "Jobs adiados sem requisição nem tentativa gasta: integração no limite de tentativas simultâneas ou com o disjuntor aberto",
      labelNames: ["reason"] as const,
      registers: [registry],
    }),
    breakerOpened: new Counter({
      name: "gw_webhook_breaker_opened_total",
      help: "Aberturas do disjuntor de uma integração neste processo: após falhas seguidas sem resposta, ou ao falhar a tentativa de sondagem",
      labelNames: ["cause"] as const,
      registers: [registry],
    }),
    // Read from the gate at scrape time: a breaker forgotten (no job left to probe it) leaves the count with it.
    breakersOpen: new Gauge({
      name: "gw_webhook_breakers_open",
      help: "Integrações com o disjuntor aberto (ou em sondagem) neste processo",
      registers: [registry],
      collect() {
        this.set(sources.openBreakers());
      },
    }),
    integrationsDisabled: new Counter({
      name: "gw_webhook_integrations_disabled_total",
      help: "Integrações desativadas porque todas as tentativas falharam por WEBHOOK_DISABLE_AFTER_FAILING_MS",
      registers: [registry],
    }),
    requeued: new Counter({
      name: "gw_webhook_reconciled_total",
      help: "Entregas sem job ativo recolocadas na fila pelo reconciliador",
      registers: [registry],
    }),
    retentionPurged: new Counter({
      name: "gw_retention_purged_total",
      help: "Linhas apagadas (ou dados pessoais limpos, em .response_body e .content) pela retenção, por tabela",
      labelNames: ["table"] as const,
      registers: [registry],
    }),
    secretUnavailable: new Counter({
      name: "gw_webhook_secret_unavailable_total",
      help: "Tentativas não feitas porque o segredo de assinatura da integração não pôde ser decifrado (chave fora de SECRETS_KEYS, valor alterado ou malformado); nada foi enviado",
      labelNames: ["reason"] as const,
      registers: [registry],
    }),
    held: new Counter({
      name: "gw_webhook_deliveries_held_total",
      help: "Tentativas seguradas pela entrega em ordem: uma entrega anterior da mesma mensagem (ou contato) ainda não terminou",
      registers: [registry],
    }),
  };
}

export type DispatcherMetrics = ReturnType<typeof createMetrics>;
