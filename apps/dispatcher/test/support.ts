// Helpers of the dispatcher tests (not a test file itself). A dispatcher process is @gw/test-stack's
// `spawnApp("dispatcher", testSettings(...))`.
import { testSecretsKeys } from "@gw/testkit";
import { loadDispatcherConfig, type DispatcherConfig } from "../src/config.ts";

/** Fast settings for tests; anything can be overridden per test. */
export function testSettings(
  base: { databaseUrl: string; redisUrl: string; prefix: string },
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    DATABASE_URL: base.databaseUrl,
    DATABASE_POOL_SIZE: "4",
    REDIS_URL: base.redisUrl,
    REDIS_KEY_PREFIX: base.prefix,
    DISPATCHER_HOST: "127.0.0.1",
    DISPATCHER_PORT: "0",
    DISPATCHER_CONCURRENCY: "5",
    WEBHOOK_TIMEOUT_MS: "2000",
    DISPATCHER_LOCK_DURATION_MS: "4000",
    DISPATCHER_STALLED_INTERVAL_MS: "1000",
    WEBHOOK_RETRY_SCHEDULE_MS: "50,100,150,200,250,300",
    WEBHOOK_RETRY_JITTER: "0.2",
    RECONCILE_INTERVAL_MS: "60000",
    RECONCILE_GRACE_MS: "60000",
    LOG_LEVEL: "warn",
    USER_AGENT: "Teste-Dispatcher/1.0",
    // Test receivers listen on loopback.
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    SECRETS_KEYS: testSecretsKeys(),
    ...overrides,
  };
}

export function testConfig(settings: Record<string, string>): DispatcherConfig {
  return loadDispatcherConfig(settings);
}
