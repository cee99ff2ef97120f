// The gateway's processes as the fault suites run them: each app is its bundle (`node dist/<app>/main.mjs`, as the
// image runs it) on a loopback port chosen beforehand (so the sandbox can be told where the API is, and the watchdog
// where to look), with time-scaled settings. Settings a suite does not name keep the apps' defaults.
import { eventually, freePort, testSecretsKeys } from "@gw/testkit";
import type { AppName } from "../bundles.ts";
import { spawnApp, type AppProcess } from "../processes.ts";

/** Shared by the sandbox (which signs its webhooks and checks the token) and the API. */
const SECRETS = {
  META_APP_SECRET: "fault-app-secret",
  META_ACCESS_TOKEN: "fault-access-token",
  META_VERIFY_TOKEN: "fault-verify-token",
} as const;

const BUNDLES = {
  api: "api",
  dispatcher: "dispatcher",
  panel: "panel",
  sandbox: "provider-sandbox",
} as const satisfies Record<string, AppName>;

export interface RunningApp {
  /** Name used in failure messages: `api`, `dispatcher#2`... */
  name: string;
  process: AppProcess;
  url: string;
  /** Answers as long as the process serves requests, whatever its dependencies do. */
  livenessPath: string;
  /** 200 only while the process reaches PostgreSQL and Redis; null when it has no such probe. */
  readinessPath: string | null;
}

/** The last lines a process wrote, for failure messages. */
export function tail(app: RunningApp, lines = 30): string {
  return app.process.output().trimEnd().split("\n").slice(-lines).join("\n");
}

/** How the process runs: the node flags before its bundle (the image's, docker/Dockerfile). */
interface Runtime {
  nodeArgs?: readonly string[];
}

function launch(
  kind: keyof typeof BUNDLES,
  name: string,
  port: number,
  env: Record<string, string>,
  runtime: Runtime = {},
): Omit<RunningApp, "livenessPath" | "readinessPath"> {
  const process = spawnApp(BUNDLES[kind], env, runtime.nodeArgs ? { nodeArgs: runtime.nodeArgs } : {});
  return { name, process, url: `http://127.0.0.1:${port}` };
}

/** Poll `path` until it answers 200; fails at once, with the process's output, if it exits first. */
export async function waitUntilUp(app: RunningApp, path = app.readinessPath ?? app.livenessPath): Promise<void> {
  await eventually(
    async () => {
      const { exitCode, signalCode } = app.process.child;
      if (exitCode !== null || signalCode !== null)
        throw new Error(
          `${app.name} terminou (código ${exitCode}, sinal ${signalCode}) antes de responder:\n${tail(app)}`,
        );
      return fetch(`${app.url}${path}`, { signal: AbortSignal.timeout(2_000) }).then(
        async (r) => (await r.arrayBuffer(), r.status === 200),
        () => false,
      );
    },
    { timeoutMs: 60_000, intervalMs: 100, what: `${app.name}: ${path} responder 200` },
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${tail(app)}`);
  });
}

export interface Stack {
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
}

export async function startSandbox(
  name: string,
  options: { port?: number; webhookUrl: string; wabaId: string; env?: Record<string, string> },
): Promise<RunningApp> {
  const port = options.port ?? (await freePort());
  const app: RunningApp = {
    ...launch("sandbox", name, port, {
      ...SECRETS,
      SANDBOX_PORT: String(port),
      SANDBOX_WEBHOOK_URL: options.webhookUrl,
      // The webhooks name the account's WABA in entry[].id, as Meta's would.
      SANDBOX_WABA_ID: options.wabaId,
      ...options.env,
    }),
    livenessPath: "/_sandbox/config",
    readinessPath: null,
  };
  await waitUntilUp(app);
  return app;
}

export async function startApi(
  name: string,
  stack: Stack,
  options: { port: number; metaBaseUrl: string; env?: Record<string, string> } & Runtime,
): Promise<RunningApp> {
  const app: RunningApp = {
    ...launch(
      "api",
      name,
      options.port,
      {
        ...SECRETS,
        DATABASE_URL: stack.databaseUrl,
        REDIS_URL: stack.redisUrl,
        REDIS_KEY_PREFIX: stack.redisPrefix,
        API_PORT: String(options.port),
        // No internal listener: its fixed default port would clash with a running `npm start`.
        API_INTERNAL_PORT: "0",
        META_BASE_URL: options.metaBaseUrl,
        // The suites measure faults, not the per-key limit.
        API_RATE_LIMIT_POINTS: "1000000",
        ...options.env,
      },
      options,
    ),
    livenessPath: "/healthz",
    readinessPath: "/readyz",
  };
  await waitUntilUp(app);
  return app;
}

/** The web panel on plain cookies (loopback http), waited for until it serves. */
export async function startPanel(
  name: string,
  stack: Stack,
  options: { port?: number; env?: Record<string, string> } = {},
): Promise<RunningApp> {
  const port = options.port ?? (await freePort());
  const app: RunningApp = {
    ...launch("panel", name, port, {
      META_ACCESS_TOKEN: SECRETS.META_ACCESS_TOKEN,
      DATABASE_URL: stack.databaseUrl,
      REDIS_URL: stack.redisUrl,
      REDIS_KEY_PREFIX: stack.redisPrefix,
      PANEL_PORT: String(port),
      PANEL_COOKIE_SECURE: "false",
      SECRETS_KEYS: testSecretsKeys(),
      ...options.env,
    }),
    livenessPath: "/healthz",
    readinessPath: null,
  };
  await waitUntilUp(app);
  return app;
}

/** Started without waiting: a replacement dispatcher is spawned while the stream goes on. */
export async function launchDispatcher(
  name: string,
  stack: Stack,
  env: Record<string, string> = {},
): Promise<RunningApp> {
  const port = await freePort();
  return {
    ...launch("dispatcher", name, port, {
      DATABASE_URL: stack.databaseUrl,
      REDIS_URL: stack.redisUrl,
      REDIS_KEY_PREFIX: stack.redisPrefix,
      DISPATCHER_PORT: String(port),
      // The suites' receivers listen on loopback.
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      SECRETS_KEYS: testSecretsKeys(),
      ...env,
    }),
    livenessPath: "/healthz",
    readinessPath: "/readyz",
  };
}

/** SIGKILL, as a node dies; resolves once it is gone. */
export async function kill(app: RunningApp): Promise<void> {
  await app.process.kill();
}
