// One gateway process as a pod runs it: `node [flags] dist/<app>/main.mjs` (the bundle, see bundles.ts) from the
// repository root, with only PATH, HOME and the given environment. The crash harness of every process test: its
// output is kept, lines can be waited for, and it can be stopped (SIGTERM) or killed (SIGKILL) and waited for.
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import type { Readable } from "node:stream";
import { REPO_ROOT } from "@gw/testkit";
import { ensureBundle, type AppName } from "./bundles.ts";

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

export interface AppProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** stdout and stderr so far, interleaved as they arrived. */
  output(): string;
  /** Every non-empty line written so far (JSON lines from @gw/logger, plus stderr). */
  lines: string[];
  /** The first line containing `fragment`, as soon as it is written; fails with the output after `timeoutMs`. */
  waitForLine(fragment: string, timeoutMs?: number): Promise<string>;
  exited: Promise<Exit>;
  /** SIGTERM (the graceful stop a pod gets), then wait for the exit; nothing when it already exited. */
  stop(): Promise<Exit>;
  /** SIGKILL (a node dies), then wait for the exit; nothing when it already exited. */
  kill(): Promise<Exit>;
}

export interface SpawnOptions {
  /** Node flags before the bundle: the V8 flags the image runs the app with (docker/Dockerfile), for instance. */
  nodeArgs?: readonly string[];
  /** Arguments after the bundle (the CLI's command line). */
  args?: readonly string[];
}

/** `node [nodeArgs] dist/<app>/main.mjs [args]`, with LOG_LEVEL warn unless `env` says otherwise. */
export function spawnApp(app: AppName, env: Record<string, string>, options: SpawnOptions = {}): AppProcess {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ensureBundle(app), ...(options.args ?? [])], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let partial = "";
  const lines: string[] = [];
  const waiters = new Set<{ fragment: string; resolve: (line: string) => void }>();
  const onData = (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    output += text;
    const parts = (partial + text).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) {
      if (!line.trim()) continue;
      lines.push(line);
      for (const waiter of waiters) {
        if (!line.includes(waiter.fragment)) continue;
        waiters.delete(waiter);
        waiter.resolve(line);
      }
    }
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  // On "close", after the output streams ended: a line written just before exiting is in `lines` by then.
  const exited = once(child, "close").then(([code, signal]) => {
    if (partial.trim()) lines.push(partial);
    partial = "";
    return { code: code as number | null, signal: signal as NodeJS.Signals | null };
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    output: () => output,
    lines,
    exited,
    waitForLine(fragment, timeoutMs = 20_000) {
      const seen = lines.find((line) => line.includes(fragment));
      if (seen) return Promise.resolve(seen);
      return new Promise<string>((resolve, reject) => {
        const waiter = {
          fragment,
          resolve: (line: string) => {
            clearTimeout(timer);
            resolve(line);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`linha de log não apareceu: ${fragment}\n${lines.join("\n")}`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    stop: () => {
      if (running()) child.kill("SIGTERM");
      return exited;
    },
    kill: () => {
      if (running()) child.kill("SIGKILL");
      return exited;
    },
  };
}

/** Kill a process still running at the end of a test (SIGKILL: nothing of it matters any more). */
export async function reap(app: AppProcess | undefined): Promise<void> {
  if (app) await app.kill();
}
