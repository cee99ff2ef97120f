// Helpers of the dispatcher tests (not a test file itself). A dispatcher process is @gw/test-stack's
// `spawnApp("dispatcher", testSettings(...))`; one in this process is `bed.startDispatcher(...)`.
import type { Db } from "@gw/db";
import { createRedis, createWebhookQueue, type Redis, type WebhookQueue } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import {
  createDelivery,
  silentLogger,
  testEnv,
  testSecretsKeys,
  type Fixture,
  type isolatedDatabase,
  type ReceivedRequest,
  type Receiver,
} from "@gw/testkit";
import { loadDispatcherConfig, type DispatcherConfig } from "../src/config.ts";
import { createDispatcher, type Dispatcher } from "../src/index.ts";

/** Where a dispatcher's settings point: its database, its Redis and its key prefix. */
export interface SettingsBase {
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
}

/** Fast settings for tests; anything can be overridden per test. */
export function testSettings(base: SettingsBase, overrides: Record<string, string> = {}): Record<string, string> {
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

/** The least configuration the dispatcher loads (nothing is connected to): for the configuration's own tests. */
export const REQUIRED_SETTINGS = {
  DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/x",
  REDIS_URL: "redis://127.0.0.1:6379",
  SECRETS_KEYS: testSecretsKeys(),
};

/**
 * Settings of the crash tests' dispatcher processes: `info` logs (their lines are waited for), and the lock, the
 * stalled-job check and the sweep in about a second, so that a killed dispatcher's attempt is found again quickly.
 */
export const CRASH_SETTINGS = {
  LOG_LEVEL: "info",
  WEBHOOK_TIMEOUT_MS: "3000",
  DISPATCHER_LOCK_DURATION_MS: "4000",
  DISPATCHER_STALLED_INTERVAL_MS: "1000",
  RECONCILE_INTERVAL_MS: "1000",
  RECONCILE_GRACE_MS: "1000",
};

/** What a dispatcher test stands on: a database of the file's own and the webhook queue under a fresh prefix. */
export interface DispatcherBed {
  db: Db;
  redis: Redis;
  /** The API's side of the queue (it enqueues attempt 1 after its commit). */
  queue: WebhookQueue;
  base: SettingsBase;
  /**
   * A dispatcher in this process on `testSettings(base, overrides)`, started (silent, on the bed's database unless
   * `deps` says otherwise); stopped by `stopDispatchers`.
   */
  startDispatcher(overrides?: Record<string, string>, deps?: { logger?: Logger; db?: Db }): Promise<Dispatcher>;
  /** Stops every dispatcher started so far. */
  stopDispatchers(): Promise<void>;
  /** `count` new pending deliveries of `fixture`'s integration, their ids in order. */
  deliveries(fixture: Fixture, count: number): Promise<bigint[]>;
  /** Stops the dispatchers, then closes `servers` (the test's receivers), empties and closes the queue, drops the database. */
  close(...servers: { close(): Promise<void> }[]): Promise<void>;
}

/**
 * The bed on `database` (the file's `isolatedDatabase()`: the sweep scans whole tables) and the run's Redis, or the
 * server at `redisUrl`.
 */
export function openBed(
  database: Awaited<ReturnType<typeof isolatedDatabase>>,
  redisUrl = testEnv().redisUrl,
): DispatcherBed {
  const base = { databaseUrl: database.url, redisUrl, prefix: testEnv().redisPrefix };
  const redis = createRedis(redisUrl);
  const queue = createWebhookQueue(redis, base.prefix);
  const started: Dispatcher[] = [];
  const stopDispatchers = async () => {
    for (const dispatcher of started.splice(0)) await dispatcher.stop();
  };
  return {
    db: database.db,
    redis,
    queue,
    base,
    async startDispatcher(overrides = {}, deps = {}) {
      const dispatcher = createDispatcher(testConfig(testSettings(base, overrides)), {
        logger: deps.logger ?? silentLogger,
        db: deps.db ?? database.db,
      });
      started.push(dispatcher);
      await dispatcher.start();
      return dispatcher;
    },
    stopDispatchers,
    async deliveries(fixture, count) {
      const ids: bigint[] = [];
      for (let i = 0; i < count; i++) ids.push((await createDelivery(database.db, fixture)).id);
      return ids;
    },
    async close(...servers) {
      await stopDispatchers();
      for (const server of servers) await server.close();
      await queue.obliterate({ force: true });
      await queue.close();
      redis.disconnect();
      await database.drop();
    },
  };
}

/** The dispatcher's /metrics, as text. */
export async function metricsOf(dispatcher: Dispatcher): Promise<string> {
  return (await fetch(`http://127.0.0.1:${dispatcher.port}/metrics`)).text();
}

/** The number `pattern`'s first group captures in a /metrics text; 0 when it is absent. */
export function metricValue(text: string, pattern: RegExp): number {
  return Number(pattern.exec(text)?.[1] ?? 0);
}

/** The value of one series (its name and labels as written) in a /metrics text; undefined when absent. */
export function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** The requests `receiver` got for one delivery, in order. */
export function requestsOf(receiver: Receiver, deliveryId: bigint | string): ReceivedRequest[] {
  return receiver.requests.filter((r) => r.headers["x-pt-delivery-id"] === deliveryId.toString());
}
