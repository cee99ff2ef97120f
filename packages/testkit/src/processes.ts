import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import type { Readable } from "node:stream";
import { REPO_ROOT } from "./repo.ts";

export interface AppProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** stdout and stderr so far, interleaved as they arrived. */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM (the graceful stop a pod gets), then wait for the exit; nothing when it already exited. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `node --import tsx <script>` from the repository root, for a test's own helper script (the gateway's apps are
 * spawned as their bundles, by @gw/test-stack's spawnApp), with only PATH, HOME and `env` in its environment
 * (LOG_LEVEL warn unless given).
 */
export function spawnScript(script: string, env: Record<string, string>, nodeArgs: readonly string[] = []): AppProcess {
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", script], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const exited = once(child, "exit").then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  return {
    child,
    output: () => output,
    exited,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
