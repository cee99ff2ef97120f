// Presets of startStack for the suites that drive the API end to end: the API and the provider sandbox (the API's
// own tests), a dispatcher beside them, and a contact writing in through the sandbox.
import type { Dispatcher } from "@gw/dispatcher";
import type { ApiConfig, ApiDeps } from "@gw/api";
import type { createApp } from "@gw/api";
import type { Db } from "@gw/db";
import type { Redis } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import type { RunningSandbox, SandboxOptions } from "@gw/provider-sandbox";
import { silentLogger, testEnv } from "@gw/testkit";
import { startStack } from "./stack.ts";

export interface TestGateway {
  app: ReturnType<typeof createApp>;
  /** The API listening on loopback (the sandbox posts its webhooks here). */
  apiUrl: string;
  sandbox: RunningSandbox;
  deps: ApiDeps;
  config: ApiConfig;
  db: Db;
  redis: Redis;
  redisPrefix: string;
  close(): Promise<void>;
}

/** API + provider sandbox on loopback ports, against the test Postgres and Redis, with a fresh Redis prefix. */
export async function startTestGateway(
  options: { env?: Record<string, string>; sandbox?: Partial<SandboxOptions>; logger?: Logger } = {},
): Promise<TestGateway> {
  const stack = await startStack({
    sandbox: options.sandbox ?? true,
    api: { env: options.env ?? {} },
    ...(options.logger ? { logger: options.logger } : {}),
  });
  if (!stack.api || !stack.sandbox) throw new Error("startStack sem API ou sandbox");
  return {
    app: stack.api.app,
    apiUrl: stack.api.url,
    sandbox: stack.sandbox,
    deps: stack.api.deps,
    config: stack.api.config,
    db: stack.db,
    redis: stack.redis,
    redisPrefix: stack.redisPrefix,
    close: () => stack.close(),
  };
}

/** A contact writes to the business number through the sandbox (opens the 24 h window). */
export async function contactWrites(
  gateway: { sandbox: { url: string } },
  body: Record<string, unknown>,
): Promise<{ id: string; webhook_status: number | null }> {
  const res = await fetch(`${gateway.sandbox.url}/_sandbox/inbound`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { id: string; webhook_status: number | null };
}

/**
 * A dispatcher in this process, on the gateway's Redis prefix, with a fast retry schedule; `overrides` are
 * dispatcher environment variables. The caller stops it.
 */
export async function startTestDispatcher(
  gateway: { redisPrefix: string },
  overrides: Record<string, string> = {},
): Promise<Dispatcher> {
  const env = testEnv();
  const { createDispatcher, loadDispatcherConfig } = await import("@gw/dispatcher");
  const dispatcher = createDispatcher(
    loadDispatcherConfig({
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redisUrl,
      REDIS_KEY_PREFIX: gateway.redisPrefix,
      DISPATCHER_PORT: "0",
      WEBHOOK_RETRY_SCHEDULE_MS: "50,50,50,50,50,50",
      RECONCILE_INTERVAL_MS: "500",
      // Test receivers listen on loopback.
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      SECRETS_KEYS: env.secretsKeys,
      ...overrides,
    }),
    { logger: silentLogger },
  );
  await dispatcher.start();
  return dispatcher;
}
