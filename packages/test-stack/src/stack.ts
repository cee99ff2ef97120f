// The gateway in this test process: the provider sandbox, the API, the dispatcher and the panel on loopback ports,
// against the test PostgreSQL (the run's database, or a database of the test's own) and Redis, with a fresh Redis
// prefix. Each part is asked for by name; what is not asked for is not started, nor loaded: each app's modules are
// imported when it is asked for (jest loads a test file's module graph anew for every file, at a cost of tenths of
// a second per app).
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ApiConfig, ApiDeps, createApp } from "@gw/api";
import { createDb, type Db } from "@gw/db";
import type { Dispatcher } from "@gw/dispatcher";
import { createRedis, type Redis } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import type { PanelDeps } from "@gw/panel";
import type { RunningSandbox, SandboxOptions } from "@gw/provider-sandbox";
import { eventually, freePort, isolatedDatabase, silentLogger, testEnv } from "@gw/testkit";
import { spawnApp } from "./processes.ts";

/** Shared by the sandbox (which signs its webhooks and checks the token) and the gateway's apps. */
export const APP_SECRET = "test-app-secret";
export const ACCESS_TOKEN = "test-access-token";
export const VERIFY_TOKEN = "test-verify-token";

export interface StackOptions {
  /**
   * `shared`: the run's database (default); `isolated`: a database of its own, copied from the run's template and
   * dropped at close; `{ url }`: a database the test made (and drops).
   */
  db?: "shared" | "isolated" | { url: string };
  /** A Redis of the test's own (a throwaway one, for tests that stop or FLUSHALL it). */
  redisUrl?: string;
  /**
   * The provider sandbox: in this process (`true` or its options; statuses after 20/40/60 ms unless said), or as a
   * process of its own (`{ process: env }`), so that what it records is not timed by this process's own load.
   */
  sandbox?: boolean | Partial<SandboxOptions> | { process: Record<string, string> };
  /** The API (`env` over the defaults); its webhook URL is given to the sandbox. */
  api?: boolean | { env?: Record<string, string> };
  /** A dispatcher with a fast retry schedule, started. */
  dispatcher?: boolean | { env?: Record<string, string> };
  /** The panel on plain cookies. */
  panel?: boolean | { env?: Record<string, string> };
  logger?: Logger;
}

export interface Stack {
  db: Db;
  databaseUrl: string;
  redis: Redis;
  redisUrl: string;
  redisPrefix: string;
  secretsKeys: string;
  /** The sandbox's base URL (Graph API and its /_sandbox control API), when started. */
  sandboxUrl: string;
  /** The in-process sandbox, when started in this process. */
  sandbox: RunningSandbox | null;
  api: { app: ReturnType<typeof createApp>; url: string; deps: ApiDeps; config: ApiConfig } | null;
  dispatcher: Dispatcher | null;
  panel: { url: string; deps: PanelDeps } | null;
  close(): Promise<void>;
}

const enabled = <T extends object>(option: boolean | T | undefined): T | null =>
  option === undefined || option === false ? null : option === true ? ({} as T) : option;

export async function listen(app: {
  listen: (port: number, host: string, cb: () => void) => Server;
}): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    );
  });
}

export async function closeServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** The provider sandbox as a process of its own (its bundle), waited for until it serves. */
export async function spawnSandbox(
  env: Record<string, string> = {},
): Promise<{ url: string; close: () => Promise<unknown> }> {
  const port = await freePort();
  const app = spawnApp("provider-sandbox", {
    SANDBOX_PORT: String(port),
    META_APP_SECRET: APP_SECRET,
    META_ACCESS_TOKEN: ACCESS_TOKEN,
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () => {
      if (app.child.exitCode !== null) throw new Error(`o sandbox terminou antes de responder:\n${app.output()}`);
      return fetch(`${url}/_sandbox/config`).then(
        (r) => r.ok,
        () => false,
      );
    },
    { timeoutMs: 20_000, intervalMs: 100, what: "o sandbox iniciar" },
  );
  return { url, close: () => app.stop() };
}

/** The parts asked for, started in order (sandbox, API, panel, dispatcher); `close()` stops them in reverse. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const env = testEnv();
  const logger = options.logger ?? silentLogger;
  const redisUrl = options.redisUrl ?? env.redisUrl;
  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    let databaseUrl = env.databaseUrl;
    let db: Db;
    if (options.db === "isolated") {
      const database = await isolatedDatabase();
      closers.push(() => database.drop());
      databaseUrl = database.url;
      db = database.db;
    } else {
      if (typeof options.db === "object") databaseUrl = options.db.url;
      db = createDb({ url: databaseUrl, poolSize: 5 });
      closers.push(() => db.$disconnect());
    }
    const redis = createRedis(redisUrl);
    closers.push(async () => {
      const keys = await redis.keys(`${env.redisPrefix}:*`).catch(() => []);
      if (keys.length > 0) await redis.del(...keys).catch(() => undefined);
      redis.disconnect();
    });

    let sandboxUrl = "";
    let sandbox: Stack["sandbox"] = null;
    if (options.sandbox && typeof options.sandbox === "object" && "process" in options.sandbox) {
      const spawned = await spawnSandbox(options.sandbox.process);
      closers.push(spawned.close);
      sandboxUrl = spawned.url;
    } else if (options.sandbox) {
      const { startSandbox } = await import("@gw/provider-sandbox");
      const running = await startSandbox({
        logger: silentLogger,
        appSecret: APP_SECRET,
        accessToken: ACCESS_TOKEN,
        statusDelaysMs: { sent: 20, delivered: 40, read: 60 },
        ...(options.sandbox === true ? {} : options.sandbox),
      });
      closers.push(() => running.close());
      sandbox = running;
      sandboxUrl = running.url;
    }

    let api: Stack["api"] = null;
    const apiOptions = enabled(options.api);
    if (apiOptions) {
      const { buildApiDeps, closeApiDeps, createApp, loadApiConfig } = await import("@gw/api");
      const config = loadApiConfig({
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: env.redisPrefix,
        META_BASE_URL: sandboxUrl || "http://127.0.0.1:9",
        META_ACCESS_TOKEN: ACCESS_TOKEN,
        META_APP_SECRET: APP_SECRET,
        META_VERIFY_TOKEN: VERIFY_TOKEN,
        META_TIMEOUT_MS: "2000",
        DATABASE_POOL_SIZE: "5",
        // The run's key ring, as the dispatcher's: integrations created over the API are signed with it. The URL
        // policy stays production's (WEBHOOK_ALLOW_PRIVATE_NETWORKS unset) unless a test says otherwise.
        SECRETS_KEYS: env.secretsKeys,
        ...apiOptions.env,
      });
      const deps = buildApiDeps(config, logger, { db, redis });
      closers.push(() => closeApiDeps(deps));
      const app = createApp(deps);
      const { server, url } = await listen(app);
      closers.push(() => closeServer(server));
      if (sandboxUrl)
        await fetch(`${sandboxUrl}/_sandbox/config`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ webhookUrl: `${url}/provider/meta/webhook` }),
        });
      api = { app, url, deps, config };
    }

    let panel: Stack["panel"] = null;
    const panelOptions = enabled(options.panel);
    if (panelOptions) {
      const { buildPanelDeps, closePanelDeps, createPanelApp, loadPanelConfig } = await import("@gw/panel");
      const deps = buildPanelDeps(
        loadPanelConfig({
          DATABASE_URL: databaseUrl,
          REDIS_URL: redisUrl,
          REDIS_KEY_PREFIX: env.redisPrefix,
          META_BASE_URL: sandboxUrl || "http://127.0.0.1:9",
          META_ACCESS_TOKEN: ACCESS_TOKEN,
          PANEL_COOKIE_SECURE: "false",
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
          SECRETS_KEYS: env.secretsKeys,
          ...panelOptions.env,
        }),
        logger,
        { db, redis },
      );
      closers.push(() => closePanelDeps(deps));
      const { server, url } = await listen(createPanelApp(deps));
      closers.push(() => closeServer(server));
      panel = { url, deps };
    }

    let dispatcher: Dispatcher | null = null;
    const dispatcherOptions = enabled(options.dispatcher);
    if (dispatcherOptions) {
      const { createDispatcher, loadDispatcherConfig } = await import("@gw/dispatcher");
      const started = createDispatcher(
        loadDispatcherConfig({
          DATABASE_URL: databaseUrl,
          REDIS_URL: redisUrl,
          REDIS_KEY_PREFIX: env.redisPrefix,
          DISPATCHER_PORT: "0",
          WEBHOOK_RETRY_SCHEDULE_MS: "50,50,50,50,50,50",
          RECONCILE_INTERVAL_MS: "500",
          // Test receivers listen on loopback.
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
          SECRETS_KEYS: env.secretsKeys,
          ...dispatcherOptions.env,
        }),
        { logger },
      );
      await started.start();
      closers.push(() => started.stop());
      dispatcher = started;
    }

    return {
      db,
      databaseUrl,
      redis,
      redisUrl,
      redisPrefix: env.redisPrefix,
      secretsKeys: env.secretsKeys,
      sandboxUrl,
      sandbox,
      api,
      dispatcher,
      panel,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
