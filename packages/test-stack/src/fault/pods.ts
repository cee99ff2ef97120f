// The idempotency fault suites' stack: API pods behind a balancer (the test picks the pod of each call) in front of
// the provider sandbox, all as processes, on a database of their own with one account. The sandbox posts no statuses
// back: only the sends matter. A watchdog watches every process; `stop()` kills them and drops the database.
import { freePort, isolatedDatabase, testEnv } from "@gw/testkit";
import { seedAccount, type ProcessAccount } from "../seed.ts";
import { kill, startApi, startSandbox, type RunningApp } from "./apps.ts";
import { createWatchdog, type Watchdog } from "./watchdog.ts";

export interface ApiPods {
  account: ProcessAccount;
  sandbox: RunningApp;
  /** `api#1`, `api#2`...: the sandbox posts its webhooks (none, statuses being off) to the last one. */
  pods: RunningApp[];
  watchdog: Watchdog;
  /** What the sandbox (Meta) accepted, in order. */
  sent(): Promise<{ wamid: string; to: string }[]>;
  /** Arms a sandbox fault (`POST /_sandbox/faults`), e.g. `{ mode: "slow", route: "messages", delay_ms, count }`. */
  fault(rule: Record<string, unknown>): Promise<number>;
  stop(): Promise<void>;
}

export async function startApiPods(options: { count: number; apiEnv?: Record<string, string> }): Promise<ApiPods> {
  // A database of its own on the shared server (a copy of the migrated test database): the pods' processes share it.
  const database = await isolatedDatabase();
  const env = testEnv();
  const stack = { databaseUrl: database.url, redisUrl: env.redisUrl, redisPrefix: env.redisPrefix };
  const account = await seedAccount(stack.databaseUrl);
  const ports = await Promise.all(Array.from({ length: options.count }, () => freePort()));
  const apps: RunningApp[] = [];
  const watchdog = createWatchdog({ maxSilenceMs: 15_000, maxUnreadyMs: 30_000 });
  const stop = async () => {
    watchdog.stop();
    for (const app of apps) await kill(app);
    await database.drop();
  };
  try {
    const sandbox = await startSandbox("sandbox", {
      webhookUrl: `http://127.0.0.1:${ports[ports.length - 1]}/provider/meta/webhook`,
      wabaId: account.wabaId,
      env: { SANDBOX_AUTO_STATUSES: "false" },
    });
    apps.push(sandbox);
    const pods = await Promise.all(
      ports.map((port, i) =>
        startApi(`api#${i + 1}`, stack, {
          port,
          metaBaseUrl: sandbox.url,
          ...(options.apiEnv ? { env: options.apiEnv } : {}),
        }),
      ),
    );
    apps.push(...pods);
    for (const app of apps) watchdog.watch(app);
    return {
      account,
      sandbox,
      pods,
      watchdog,
      sent: async () => (await (await fetch(`${sandbox.url}/_sandbox/sent`)).json()) as { wamid: string; to: string }[],
      fault: async (rule) => {
        const res = await fetch(`${sandbox.url}/_sandbox/faults`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(rule),
        });
        await res.arrayBuffer();
        return res.status;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
