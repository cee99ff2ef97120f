import { env, loadConfig, z } from "@gw/config";

/** Every variable the panel reads, parsed once at start-up (documented in .env.example). */
export const panelConfigSchema = z.object({
  PANEL_HOST: z.string().default("127.0.0.1"),
  PANEL_PORT: env.port(8083),
  /** Where users reach the panel; invite links are built from it. */
  PANEL_PUBLIC_URL: env.httpUrl().default("http://127.0.0.1:8083"),
  /** Secure cookies (https). Only a local development stack on http://127.0.0.1 sets false. */
  PANEL_COOKIE_SECURE: env.bool(true),
  PANEL_SESSION_TTL_HOURS: z.coerce
    .number()
    .min(0.1)
    .max(24 * 30)
    .default(12),
  /** Failed sign-ins allowed per email and per client address within PANEL_LOGIN_WINDOW_MINUTES. */
  PANEL_LOGIN_MAX_FAILURES_PER_EMAIL: z.coerce.number().int().min(1).default(8),
  PANEL_LOGIN_MAX_FAILURES_PER_IP: z.coerce.number().int().min(1).default(30),
  PANEL_LOGIN_WINDOW_MINUTES: z.coerce.number().int().min(1).default(15),
  /** After a rotation, how long deliveries also carry a signature made with the previous secret. */
  SECRET_ROTATION_OVERLAP_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 7)
    .default(24),
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  DATABASE_URL: env.postgresUrl(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(5),
  REDIS_URL: env.redisUrl(),
  REDIS_KEY_PREFIX: z.string().min(1).default("gw"),
  LOG_LEVEL: env.logLevel(),
  META_BASE_URL: env.httpUrl().default("http://127.0.0.1:8090"),
  META_API_VERSION: z
    .string()
    .regex(/^v\d+\.\d+$/, "deve ter a forma v23.0")
    .default("v23.0"),
  META_ACCESS_TOKEN: env.secret(8),
  /** Seconds a template catalogue read from Meta is reused (the API's variable of the same name). */
  TEMPLATE_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).default(60),
  META_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  /** Development only: integration URLs on http:// and local addresses (the same switch as the CLI's). */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: env.bool(false),
});

export type PanelConfig = z.infer<typeof panelConfigSchema>;

export function loadPanelConfig(source: NodeJS.ProcessEnv = process.env): PanelConfig {
  return loadConfig(panelConfigSchema, source);
}
