// The gateway's own processes as the benches run them: each app in its own process, on loopback ports, against
// the bench database and the stage's Redis prefix. Settings a bench does not name keep the apps' defaults;
// BENCH_API_ENV / BENCH_DISPATCHER_ENV / BENCH_SANDBOX_ENV add or override variables (`K=V K=V`).
import { eventually, freePort, testSecretsKeys } from "@gw/testkit";
import type { Cleanup } from "./cleanup.ts";
import { SECRETS, type StackEnv } from "./env.ts";
import { launchApp, waitUntilUp, type AppName, type Child } from "./processes.ts";

export interface Running {
  child: Child;
  url: string;
}

/** Where the gateway's processes keep their state: the bench database and the stage's Redis prefix; quiet logs. */
function storeEnv(stack: StackEnv, prefix: string): Record<string, string> {
  return { DATABASE_URL: stack.databaseUrl, REDIS_URL: stack.redisUrl, REDIS_KEY_PREFIX: prefix, LOG_LEVEL: "warn" };
}

/** Launches `app`, which listens on `port` (loopback), and waits until `readyPath` answers (unless `wait` is false). */
async function launchListening(
  cleanup: Cleanup,
  app: AppName,
  port: number,
  env: Record<string, string>,
  options: { stage: string; nodeArgs?: string[]; readyPath: string; wait?: boolean },
): Promise<Running> {
  const { readyPath, wait = true, ...launch } = options;
  const child = launchApp(cleanup, app, env, launch);
  const url = `http://127.0.0.1:${port}`;
  if (wait) await waitUntilUp(`${url}${readyPath}`, child);
  return { child, url };
}

/** Nothing listens on the discard port: an API that has no sandbox fails fast if it ever calls Meta. */
export const NO_PROVIDER = "http://127.0.0.1:9";

export async function startSandbox(
  cleanup: Cleanup,
  stage: string,
  options: { webhookUrl: string; autoStatuses: boolean; statusDelaysMs?: string; statusBatchMs?: number },
): Promise<Running> {
  const port = await freePort();
  return launchListening(
    cleanup,
    "sandbox",
    port,
    {
      META_APP_SECRET: SECRETS.META_APP_SECRET,
      META_ACCESS_TOKEN: SECRETS.META_ACCESS_TOKEN,
      SANDBOX_PORT: String(port),
      SANDBOX_WEBHOOK_URL: options.webhookUrl,
      SANDBOX_AUTO_STATUSES: String(options.autoStatuses),
      ...(options.statusDelaysMs ? { SANDBOX_STATUS_DELAYS_MS: options.statusDelaysMs } : {}),
      ...(options.statusBatchMs !== undefined ? { SANDBOX_STATUS_BATCH_MS: String(options.statusBatchMs) } : {}),
      LOG_LEVEL: "warn",
    },
    { stage, readyPath: "/_sandbox/config" },
  );
}

/** The API's port is chosen before it starts, so the sandbox can be told where to post its webhooks. */
export async function startApi(
  cleanup: Cleanup,
  stage: string,
  stack: StackEnv,
  prefix: string,
  options: { port: number; metaBaseUrl: string },
): Promise<Running> {
  return launchListening(
    cleanup,
    "api",
    options.port,
    {
      ...storeEnv(stack, prefix),
      API_PORT: String(options.port),
      // No internal listener (metrics, queues): its fixed port would clash with a running `npm start`.
      API_INTERNAL_PORT: "0",
      META_BASE_URL: options.metaBaseUrl,
      META_APP_SECRET: SECRETS.META_APP_SECRET,
      META_ACCESS_TOKEN: SECRETS.META_ACCESS_TOKEN,
      META_VERIFY_TOKEN: SECRETS.META_VERIFY_TOKEN,
      // The benches measure throughput, not the per-key limit.
      API_RATE_LIMIT_POINTS: "1000000000",
    },
    { stage, readyPath: "/readyz" },
  );
}

export async function startDispatcher(
  cleanup: Cleanup,
  stage: string,
  stack: StackEnv,
  prefix: string,
  options: { concurrency: number; env?: Record<string, string>; wait?: boolean; nodeArgs?: string[] },
): Promise<Running> {
  const port = await freePort();
  return launchListening(
    cleanup,
    "dispatcher",
    port,
    {
      ...storeEnv(stack, prefix),
      DISPATCHER_PORT: String(port),
      DISPATCHER_CONCURRENCY: String(options.concurrency),
      // Bench receivers listen on loopback.
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      // The key ring the seeds sealed the integrations' secrets with.
      SECRETS_KEYS: testSecretsKeys(),
      ...options.env,
    },
    {
      stage,
      ...(options.nodeArgs ? { nodeArgs: options.nodeArgs } : {}),
      readyPath: "/readyz",
      wait: options.wait ?? true,
    },
  );
}

/**
 * The contact writes to the business number through the sandbox (a signed inbound webhook to the API), which
 * opens the 24 h window free text needs; waits until the API reports the window open.
 */
export async function openWindow(
  sandboxUrl: string,
  apiUrl: string,
  account: { phoneNumberId: string; auth: { authorization: string } },
  contact: string,
): Promise<void> {
  const res = await fetch(`${sandboxUrl}/_sandbox/inbound`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      phone_number_id: account.phoneNumberId,
      from: contact,
      name: "Bench",
      type: "text",
      text: "oi",
    }),
  });
  const answer = (await res.json()) as { webhook_status?: number | null };
  if (answer.webhook_status !== 200)
    throw new Error(`the sandbox's inbound webhook was answered ${answer.webhook_status ?? "with nothing"}`);
  await eventually(
    async () => {
      const window = await fetch(`${apiUrl}/public/v1/window/${contact}`, { headers: account.auth });
      const body = (await window.json()) as { data?: { open?: boolean } };
      return body.data?.open === true;
    },
    { timeoutMs: 10_000, intervalMs: 100, what: `the 24 h window of ${contact} to open` },
  );
}
