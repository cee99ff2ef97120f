import { env, loadConfig, z } from "@gw/config";
import type { SandboxOptions } from "./types.ts";

const list = z
  .string()
  .default("")
  .transform((value) =>
    value
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );

/** Every variable the standalone sandbox reads, parsed once at start-up. */
export const sandboxConfigSchema = z.object({
  SANDBOX_HOST: z.string().default("127.0.0.1"),
  SANDBOX_PORT: env.port(8090),
  META_APP_SECRET: env.secret(8),
  /** When unset, Graph calls are not authenticated. */
  META_ACCESS_TOKEN: env.secret(8).optional(),
  SANDBOX_WEBHOOK_URL: env.httpUrl().default("http://127.0.0.1:8080/provider/meta/webhook"),
  /** sent,delivered,read in ms after an accepted send. */
  SANDBOX_STATUS_DELAYS_MS: env
    .intList([50, 150, 300])
    .refine((items) => items.length === 3, "deve ter três valores: sent,delivered,read"),
  SANDBOX_AUTO_STATUSES: env.bool(true),
  SANDBOX_ENFORCE_WINDOW: env.bool(true),
  SANDBOX_RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).optional(),
  /** Comma-separated recipients refused with 131026. */
  SANDBOX_UNREACHABLE: list,
  /** Comma-separated recipients accepted, then failed with 131026. */
  SANDBOX_FAIL_AFTER_SEND: list,
  SANDBOX_PAGE_SIZE: z.coerce.number().int().min(1).default(25),
  SANDBOX_WABA_ID: z.string().min(1).optional(),
  /** Redeliver webhooks that got no 2xx, on Meta-shaped waits (README); false for tests that count POSTs. */
  SANDBOX_WEBHOOK_RETRIES: env.bool(true),
  /** Factor applied to every redelivery wait: 1 = Meta's pace (up to 7 days), 0.001 in tests. */
  SANDBOX_WEBHOOK_RETRY_SCALE: z.coerce.number().positive("deve ser um número maior que zero").default(1),
  /** Statuses due within this window for one business number share a payload (max 100); 0 = one per payload. */
  SANDBOX_STATUS_BATCH_MS: z.coerce.number().int().min(0).default(0),
  /** Newest entries kept in the sent, requests and webhooks histories of the control API. */
  SANDBOX_HISTORY_LIMIT: z.coerce.number().int().min(1).default(10_000),
  LOG_LEVEL: env.logLevel(),
});

export type SandboxConfig = z.infer<typeof sandboxConfigSchema>;

export function loadSandboxConfig(source: NodeJS.ProcessEnv = process.env): SandboxConfig {
  return loadConfig(sandboxConfigSchema, source);
}

export function sandboxOptionsFromConfig(config: SandboxConfig): SandboxOptions & { port: number; host: string } {
  const [sent = 50, delivered = 150, read = 300] = config.SANDBOX_STATUS_DELAYS_MS;
  return {
    host: config.SANDBOX_HOST,
    port: config.SANDBOX_PORT,
    appSecret: config.META_APP_SECRET,
    accessToken: config.META_ACCESS_TOKEN,
    webhookUrl: config.SANDBOX_WEBHOOK_URL,
    statusDelaysMs: { sent, delivered, read },
    autoStatuses: config.SANDBOX_AUTO_STATUSES,
    enforceWindow: config.SANDBOX_ENFORCE_WINDOW,
    rateLimitPerSecond: config.SANDBOX_RATE_LIMIT_PER_SECOND,
    unreachable: config.SANDBOX_UNREACHABLE,
    failAfterSend: config.SANDBOX_FAIL_AFTER_SEND,
    pageSize: config.SANDBOX_PAGE_SIZE,
    wabaId: config.SANDBOX_WABA_ID,
    webhookRetries: config.SANDBOX_WEBHOOK_RETRIES,
    webhookRetryScale: config.SANDBOX_WEBHOOK_RETRY_SCALE,
    statusBatchMs: config.SANDBOX_STATUS_BATCH_MS,
    historyLimit: config.SANDBOX_HISTORY_LIMIT,
  };
}
