import { env, loadConfig, z } from "@gw/config";

/** Every variable the API reads, parsed once at start-up (documented in .env.example). */
export const apiConfigSchema = z
  .object({
    API_HOST: z.string().default("127.0.0.1"),
    API_PORT: env.port(8080),
    /** Serve /metrics on its own port instead of the API port (0 = same port). */
    API_METRICS_PORT: env.port(0),
    DATABASE_URL: env.postgresUrl(),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
    REDIS_URL: env.redisUrl(),
    REDIS_KEY_PREFIX: z.string().min(1).default("gw"),
    LOG_LEVEL: env.logLevel(),

    META_BASE_URL: env.httpUrl().default("http://127.0.0.1:8090"),
    META_API_VERSION: z
      .string()
      .regex(/^v\d+\.\d+$/, "deve ter a forma v23.0")
      .default("v23.0"),
    META_ACCESS_TOKEN: env.secret(8),
    META_APP_SECRET: env.secret(8),
    META_VERIFY_TOKEN: env.secret(8),
    META_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
    /** Templates per page when reading the catalogue (Meta's `limit`). */
    META_TEMPLATES_PAGE_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
    /** Retry-After (seconds) answered when the provider throttles; Meta does not send one. */
    PROVIDER_RETRY_AFTER_SECONDS: z.coerce.number().int().min(1).default(30),

    API_RATE_LIMIT_POINTS: z.coerce.number().int().min(1).default(600),
    API_RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
    TEMPLATE_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).default(60),
    /** How long a pod trusts an API key lookup: a revoked key stops working within this time on every pod. */
    API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
    /** How long a pod trusts a business number lookup (numbers change rarely; a new one works at once). */
    NUMBER_CACHE_TTL_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
    /** Largest Meta webhook body read, in bytes (Meta's payloads stay well below 1 MB). */
    META_WEBHOOK_BODY_LIMIT_BYTES: z.coerce.number().int().min(1_024).max(10_485_760).default(3_145_728),
    /** How often journaled sends (accepted by Meta while PostgreSQL was down) are written to PostgreSQL. */
    SEND_JOURNAL_REPLAY_INTERVAL_MS: z.coerce.number().int().min(100).default(5_000),
    IDEMPOTENCY_TTL_HOURS: z.coerce.number().int().min(24).default(48),

    /** Bull Board at /ops/queues is mounted only when both are set. */
    OPS_USER: z.string().min(1).optional(),
    OPS_PASSWORD: env.secret(12).optional(),
  })
  // One without the other is a deployment mistake: say so at start-up instead of silently not mounting the board.
  .refine((c) => c.OPS_USER !== undefined || c.OPS_PASSWORD === undefined, {
    path: ["OPS_USER"],
    message: "obrigatória quando OPS_PASSWORD está definida",
  })
  .refine((c) => c.OPS_PASSWORD !== undefined || c.OPS_USER === undefined, {
    path: ["OPS_PASSWORD"],
    message: "obrigatória quando OPS_USER está definida",
  });

export type ApiConfig = z.infer<typeof apiConfigSchema>;

export function loadApiConfig(source: NodeJS.ProcessEnv = process.env): ApiConfig {
  return loadConfig(apiConfigSchema, source);
}
