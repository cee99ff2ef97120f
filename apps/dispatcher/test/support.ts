// Helpers of the dispatcher tests (not a test file itself).
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { testSecretsKeys } from "@gw/testkit";
import { loadDispatcherConfig, type DispatcherConfig } from "../src/config.ts";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

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

export interface ChildDispatcher {
  child: ChildProcess;
  /** Every log line written so far (JSON lines from @gw/logger, plus stderr). */
  lines: string[];
  waitForLine(fragment: string, timeoutMs?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `node --import tsx apps/dispatcher/src/main.ts` as one process (the tsx CLI would add a wrapper process). */
export function spawnDispatcher(settings: Record<string, string>): ChildDispatcher {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...settings };
  const child = spawn(process.execPath, ["--import", "tsx", "apps/dispatcher/src/main.ts"], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: { fragment: string; resolve: (line: string) => void }[] = [];
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n")) {
      if (!line.trim()) continue;
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (line.includes(waiter.fragment)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = once(child, "exit").then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  return {
    child,
    lines,
    exited,
    waitForLine(fragment, timeoutMs = 20_000) {
      const seen = lines.find((line) => line.includes(fragment));
      if (seen) return Promise.resolve(seen);
      return new Promise<string>((resolvePromise, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`linha de log não apareceu: ${fragment}\n${lines.join("\n")}`)),
          timeoutMs,
        );
        waiters.push({
          fragment,
          resolve: (line) => {
            clearTimeout(timer);
            resolvePromise(line);
          },
        });
      });
    },
  };
}

/** Kill a child still running at the end of a test (SIGKILL: nothing of it matters any more). */
export async function reap(dispatcher: ChildDispatcher | undefined): Promise<void> {
  if (!dispatcher) return;
  const { child } = dispatcher;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGKILL");
  await dispatcher.exited;
}
