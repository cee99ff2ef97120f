import { env, loadConfig, sections, z } from "@gw/config";

/** Days a kind of row is kept (docs/decisions.md, "Retention"); 0 keeps it for ever, else at least `min` days. */
const retentionDays = (fallback: number, min = 1) =>
  z.coerce
    .number()
    .int()
    .min(0)
    .max(36_500)
    .default(fallback)
    .refine((days) => days === 0 || days >= min, `deve ser 0 (guardar para sempre) ou ao menos ${min} dias`);

/** Every variable the dispatcher reads, parsed once at start-up (documented in .env.example). */
export const dispatcherConfigSchema = z
  .object({
    DISPATCHER_HOST: z.string().default("127.0.0.1"),
    /** Health, readiness and metrics. */
    DISPATCHER_PORT: env.port(8081),
    ...sections.database(),
    ...sections.redis(),
    ...sections.logging(),
    ...sections.secrets(),
    ...sections.endpointHealth(),
    /** Deliveries attempted at once by this process. */
    DISPATCHER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(20),
    /**
     * Attempts to one integration in flight at once in this process (per pod, not shared): beyond it a job is
     * deferred, without holding a worker slot or spending an attempt. Unset: half of DISPATCHER_CONCURRENCY;
     * DISPATCHER_CONCURRENCY or more turns it off.
     */
    DISPATCHER_MAX_IN_FLIGHT_PER_INTEGRATION: z.coerce.number().int().min(1).max(1000).optional(),
    /**
     * Consecutive attempts to one integration without an answer (timeout, connection refused or reset, ...) that
     * open its circuit breaker in this process; 0 = no breaker.
     */
    DISPATCHER_BREAKER_FAILURES: z.coerce.number().int().min(0).max(1000).default(5),
    /**
     * How long an open breaker defers the integration's jobs (no request, no attempt spent) before one attempt
     * probes it; doubles after each failed probe, up to 16 times this.
     */
    DISPATCHER_BREAKER_COOLDOWN_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
    /** Keep-alive sockets per integrator host. */
    DISPATCHER_MAX_SOCKETS: z.coerce.number().int().min(1).max(1000).default(50),
    /**
     * Group commit of the attempts' claim and result statements (core/deliveries/process.ts): most attempts one
     * statement serves (1 = one statement per attempt), and most such statements of each kind at once.
     */
    DISPATCHER_BATCH_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(500).default(50),
    DISPATCHER_BATCH_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(50).default(2),
    /** Per-attempt deadline (spec 6.4: 10 s). */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /** Deadline to connect to the integrator's endpoint, inside WEBHOOK_TIMEOUT_MS. */
    WEBHOOK_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3_000),
    /**
     * Development only (npm start, tests): also deliver to loopback, private, ULA and CGNAT addresses (never link-local
     * or a cloud metadata address). Off, every attempt refuses a host that is or resolves to a non-public address
     * (`address_refused`).
     */
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: env.bool(false),
    /** Waits before attempts 2..7 in ms (spec 6.5: 30 s, 2 min, 10 min, 1 h, 6 h, 24 h). */
    WEBHOOK_RETRY_SCHEDULE_MS: env.intList([30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000]),
    /** Uniform variation applied to each wait (spec 6.5: up to 20 %). */
    WEBHOOK_RETRY_JITTER: z.coerce.number().min(0).max(0.5).default(0.2),
    /** Bytes of the integrator's answer kept in last_error and on each attempt. */
    WEBHOOK_RESPONSE_BODY_LIMIT: z.coerce.number().int().min(0).default(4096),
    /**
     * How often the sweep gives a job to every delivery due within the horizon that has none (retries kept in
     * PostgreSQL, jobs lost with Redis). It repeats at once while it finds more.
     */
    RECONCILE_INTERVAL_MS: z.coerce.number().int().min(100).default(5_000),
    /** How late a due delivery may be before a finished job with its id is taken as lost. */
    RECONCILE_GRACE_MS: z.coerce.number().int().min(0).default(60_000),
    /** Deliveries examined per sweep batch. */
    RECONCILE_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(1_000),
    /**
     * Retries due within this time wait in Redis as delayed jobs; later ones (10 min, 1 h, 6 h, 24 h) wait in
     * PostgreSQL until the sweep moves them, so a large backlog costs no Redis memory.
     */
    DISPATCHER_SCHEDULE_HORIZON_MS: z.coerce.number().int().min(1_000).default(180_000),
    /**
     * Whether the dispatcher's commits (claims, attempt results) wait for the WAL flush. Off by default: a result lost
     * in a PostgreSQL crash only means the attempt runs again (same delivery id; receivers deduplicate, spec 6.4),
     * and each attempt then costs no disk flush. Nothing the dispatcher writes is the only record of an event.
     */
    DISPATCHER_SYNCHRONOUS_COMMIT: env.bool(false),
    /** Jobs waiting in Redis above which the sweep adds no more (the queue drains first). */
    DISPATCHER_MAX_QUEUED_JOBS: z.coerce.number().int().min(100).default(20_000),
    /** BullMQ job lock; must stay well above WEBHOOK_TIMEOUT_MS or a slow attempt would be taken as stalled. */
    DISPATCHER_LOCK_DURATION_MS: z.coerce.number().int().min(1_000).default(60_000),
    /** How often workers look for jobs whose worker died (lock expired) and put them back in the queue. */
    DISPATCHER_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).default(30_000),
    /** Times a job may be recovered from a dead worker before BullMQ fails it (the reconciler still catches it). */
    DISPATCHER_MAX_STALLED_COUNT: z.coerce.number().int().min(1).max(100).default(2),
    USER_AGENT: z.string().default("MessagingGateway-Webhooks/1.0"),
    /**
     * How often expired Idempotency-Key records, expired panel sessions and previous signing secrets whose rotation
     * overlap ended are deleted (keys expire after IDEMPOTENCY_TTL_HOURS).
     */
    IDEMPOTENCY_PURGE_INTERVAL_MS: z.coerce.number().int().min(1_000).default(3_600_000),
    /** How often the retention purges run (every table below whose days are not 0). */
    RETENTION_INTERVAL_MS: z.coerce.number().int().min(1_000).default(3_600_000),
    /** Rows per purge statement; each batch is its own short transaction. */
    RETENTION_BATCH_SIZE: z.coerce.number().int().min(1).max(100_000).default(1_000),
    /** Provider webhook payloads already applied; at least Meta's 7 days of redelivery (deduplicated by hash). */
    PROVIDER_EVENTS_RETENTION_DAYS: retentionDays(30, 7),
    /** The integrator's answer kept on each delivery attempt is cleared after this (the attempt row stays). */
    ATTEMPT_BODY_RETENTION_DAYS: retentionDays(30),
    /** Delivered deliveries (and their attempts), counted from delivery. */
    DELIVERIES_RETENTION_DAYS: retentionDays(90),
    /** Dead letters (status failed, awaiting a manual resend), counted from their last attempt. */
    FAILED_DELIVERIES_RETENTION_DAYS: retentionDays(90),
    /** Statuses parked for a message that never appeared. */
    EARLY_STATUS_RETENTION_DAYS: retentionDays(7),
    /**
     * The contact's text, profile name and media of inbound messages are cleared after this (LGPD), and so are their
     * payment answers and the records of the media they carried (no longer downloadable, even within Meta's 7 days).
     */
    INBOUND_TEXT_RETENTION_DAYS: retentionDays(30),
    /** Inbound message rows; at least 7 days, since their wamid deduplicates Meta's redeliveries. */
    INBOUND_RETENTION_DAYS: retentionDays(90, 7),
    /** Audit entries (evidence of who did what). */
    AUDIT_RETENTION_DAYS: retentionDays(365),
    /** Pix orders with their messages (recipient, items, payment settings), counted from their last change. */
    ORDER_RETENTION_DAYS: retentionDays(90),
    /**
     * How often the cost ledger's rollup looks for a new São Paulo day to roll (it works once a day; the other runs
     * read one row).
     */
    PRICING_ROLLUP_INTERVAL_MS: z.coerce.number().int().min(1_000).default(3_600_000),
    /** Deliveries a replay by time range re-queues per batch (one transaction each); its job defers itself between. */
    REPLAY_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
  })
  .refine((c) => c.DISPATCHER_LOCK_DURATION_MS >= c.WEBHOOK_TIMEOUT_MS + 1_000, {
    path: ["DISPATCHER_LOCK_DURATION_MS"],
    message: "deve ser ao menos 1 s maior que WEBHOOK_TIMEOUT_MS",
  });

export type DispatcherConfig = z.infer<typeof dispatcherConfigSchema>;

export function loadDispatcherConfig(source: NodeJS.ProcessEnv = process.env): DispatcherConfig {
  return loadConfig(dispatcherConfigSchema, source);
}
