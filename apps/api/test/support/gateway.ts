import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  DEVELOPMENT_INTEGRATION_POLICY,
  addBusinessNumber,
  createAccount,
  createApiKey,
  setIntegration,
  type WebhookEvent,
} from "@gw/core";
import { createDb, type Db } from "@gw/db";
import { createRedis, type Redis } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import { createDispatcher, loadDispatcherConfig, type Dispatcher } from "@gw/dispatcher";
import { startSandbox, type RunningSandbox, type SandboxOptions } from "@gw/provider-sandbox";
import { silentLogger, testEnv, testActor, testSecretBox } from "@gw/testkit";
import { createApp } from "../../src/app.ts";
import { loadApiConfig, type ApiConfig } from "../../src/config.ts";
import { buildApiDeps, closeApiDeps, type ApiDeps } from "../../src/container.ts";

export const APP_SECRET = "test-app-secret";
export const ACCESS_TOKEN = "test-access-token";
export const VERIFY_TOKEN = "test-verify-token";

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
  const env = testEnv();
  const sandbox = await startSandbox({
    logger: silentLogger,
    appSecret: APP_SECRET,
    accessToken: ACCESS_TOKEN,
    statusDelaysMs: { sent: 20, delivered: 40, read: 60 },
    ...options.sandbox,
  });
  const config = loadApiConfig({
    DATABASE_URL: env.databaseUrl,
    REDIS_URL: env.redisUrl,
    REDIS_KEY_PREFIX: env.redisPrefix,
    META_BASE_URL: sandbox.url,
    META_ACCESS_TOKEN: ACCESS_TOKEN,
    META_APP_SECRET: APP_SECRET,
    META_VERIFY_TOKEN: VERIFY_TOKEN,
    META_TIMEOUT_MS: "2000",
    DATABASE_POOL_SIZE: "5",
    ...options.env,
  });
  const db = createDb({ url: env.databaseUrl, poolSize: config.DATABASE_POOL_SIZE });
  const redis = createRedis(env.redisUrl);
  const deps = buildApiDeps(config, options.logger ?? silentLogger, { db, redis });
  const app = createApp(deps);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await fetch(`${sandbox.url}/_sandbox/config`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ webhookUrl: `${apiUrl}/provider/meta/webhook` }),
  });
  return {
    app,
    apiUrl,
    sandbox,
    deps,
    config,
    db,
    redis,
    redisPrefix: env.redisPrefix,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await sandbox.close();
      await closeApiDeps(deps);
    },
  };
}

export interface TestAccount {
  accountId: string;
  apiKey: string;
  keyId: string;
  phoneNumberId: string;
  wabaId: string;
  auth: { Authorization: string };
}

/** A fresh account with one business number and a key (numbers are unique across accounts). */
export async function createTestAccount(
  db: Db,
  options: { integrationUrl?: string; events?: WebhookEvent[] } = {},
): Promise<TestAccount & { signingSecret: string | null }> {
  const account = await createAccount({ db }, { actor: testActor, name: `test-${randomBytes(3).toString("hex")}` });
  const phoneNumberId = `1${randomBytes(6).readUIntBE(0, 6).toString().padStart(14, "0").slice(0, 14)}`;
  const wabaId = `2${randomBytes(6).readUIntBE(0, 6).toString().padStart(14, "0").slice(0, 14)}`;
  await addBusinessNumber(
    { db },
    { actor: testActor, accountId: account.id, phoneNumberId, wabaId, displayNumber: "+55 11 4000-0000" },
  );
  const key = await createApiKey({ db }, { actor: testActor, accountId: account.id });
  let signingSecret: string | null = null;
  if (options.integrationUrl) {
    // Test receivers listen on loopback: the development policy.
    const integration = await setIntegration(
      { db, policy: DEVELOPMENT_INTEGRATION_POLICY, secrets: testSecretBox() },
      {
        actor: testActor,
        accountId: account.id,
        url: options.integrationUrl,
        events: options.events ?? ["message.status", "message.received"],
      },
    );
    signingSecret = integration.signing_secret;
  }
  return {
    accountId: account.id,
    apiKey: key.key,
    keyId: key.id,
    phoneNumberId,
    wabaId,
    auth: { Authorization: `Bearer ${key.key}` },
    signingSecret,
  };
}

/** A contact writes to the business number through the sandbox (opens the 24 h window). */
export async function contactWrites(
  gateway: TestGateway,
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
  gateway: TestGateway,
  overrides: Record<string, string> = {},
): Promise<Dispatcher> {
  const env = testEnv();
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
