// Child processes: the real apps, run as in production (`node dist/<app>/main.mjs`, the bundles scripts/build.mjs
// writes, built once at the first launch; BENCH_RUNTIME=tsx runs their TypeScript sources through tsx instead),
// and the bench's own helpers (receiver, echo server, bare BullMQ worker; always through tsx). Each child's log
// lines are forwarded with its name (the first few; the rest are counted), a child that dies early fails the wait
// for it, and `stop()` sends SIGTERM (the apps shut down gracefully, which is also when --cpu-prof writes its
// file), then SIGKILL.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { buildBundles, bundleOf } from "@gw/test-stack";
import { eventually } from "@gw/testkit";
import type { Cleanup } from "./cleanup.ts";
import { choiceEnv, pairsEnv, strEnv } from "./env.ts";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Each app's TypeScript entry and the folder of its bundle under dist/ (scripts/build.mjs's names). */
const APPS = {
  api: { source: "apps/api/src/main.ts", bundle: "api" },
  dispatcher: { source: "apps/dispatcher/src/main.ts", bundle: "dispatcher" },
  sandbox: { source: "apps/provider-sandbox/src/main.ts", bundle: "provider-sandbox" },
} as const;
export type AppName = keyof typeof APPS;

/** How the apps run: `bundle` (production's way, the default) or `tsx` (development's and the tests'). */
export const RUNTIME = choiceEnv("BENCH_RUNTIME", ["bundle", "tsx"] as const, "bundle");

/** Extra environment for one app, from BENCH_API_ENV / BENCH_DISPATCHER_ENV / BENCH_SANDBOX_ENV (`K=V K=V`). */
const OVERRIDES: Record<AppName, string> = {
  api: "BENCH_API_ENV",
  dispatcher: "BENCH_DISPATCHER_ENV",
  sandbox: "BENCH_SANDBOX_ENV",
};

/**
 * The node flags production gives the API and the dispatcher (docker/Dockerfile, the start-up script): a 128 MB
 * V8 old space, so garbage is collected before RSS passes the 200 MB pod budget, and WebAssembly kept on V8's
 * baseline compiler (Prisma's query compiler is WebAssembly; optimising it cost ≈ 45 MB of RSS and bought
 * nothing measurable). Measured in docs/performance.md.
 */
export const PRODUCTION_NODE_FLAGS: readonly string[] = ["--max-old-space-size=128", "--liftoff-only"];

/**
 * Node flags per app, from BENCH_API_NODE_FLAGS / BENCH_DISPATCHER_NODE_FLAGS / BENCH_SANDBOX_NODE_FLAGS; when the
 * variable is set (even empty) it replaces the app's default: PRODUCTION_NODE_FLAGS for the API and the
 * dispatcher, none for the sandbox.
 */
const NODE_FLAGS: Record<AppName, { variable: string; fallback: readonly string[] }> = {
  api: { variable: "BENCH_API_NODE_FLAGS", fallback: PRODUCTION_NODE_FLAGS },
  dispatcher: { variable: "BENCH_DISPATCHER_NODE_FLAGS", fallback: PRODUCTION_NODE_FLAGS },
  sandbox: { variable: "BENCH_SANDBOX_NODE_FLAGS", fallback: [] },
};

/** The node flags an app runs with in this bench run. */
export function appNodeFlags(name: AppName): string[] {
  const { variable, fallback } = NODE_FLAGS[name];
  const raw = process.env[variable];
  return raw === undefined ? [...fallback] : raw.split(/\s+/).filter(Boolean);
}

/** The V8 old-space cap the flags set (the last --max-old-space-size wins, as in node), or null. */
export function maxOldSpaceMb(flags: readonly string[]): number | null {
  let cap: number | null = null;
  for (const flag of flags) {
    const match = /^--max-old-space-size=(\d+)$/.exec(flag);
    if (match?.[1]) cap = Number(match[1]);
  }
  return cap;
}

let built = false;
/**
 * Builds the apps' bundles once per bench run (a fraction of a second), so they are never older than the sources:
 * the test stack's build (@gw/test-stack), the one the tests' processes run.
 */
function ensureBundles(): void {
  if (built) return;
  try {
    buildBundles(Object.values(APPS).map((app) => app.bundle));
  } catch (error) {
    throw new Error(`${(error as Error).message}\nBENCH_RUNTIME=tsx runs the sources instead`, { cause: error });
  }
  built = true;
}

/** Log lines printed per child before the rest are only counted. */
const LOG_LINES_SHOWN = 15;

export interface Child {
  name: string;
  pid: number;
  process: ChildProcess;
  /** Resolves when the process ends (code or signal). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Log lines not printed. */
  readonly suppressedLines: number;
  /** SIGTERM, then SIGKILL after `graceMs`. Safe to call twice. */
  stop(graceMs?: number): Promise<void>;
}

export interface LaunchOptions {
  /** Also write a V8 CPU profile when BENCH_PROFILE_DIR is set (the API and the dispatcher). */
  profile?: boolean;
  /** Open an IPC channel (process.send in the child). */
  ipc?: boolean;
  /** Extra node flags, e.g. --max-old-space-size; after the app's own (appNodeFlags), so they win. */
  nodeArgs?: string[];
  /** Stage name, used in the profile's file name. */
  stage: string;
}

export function launchApp(cleanup: Cleanup, name: AppName, env: Record<string, string>, options: LaunchOptions): Child {
  const profile = options.profile ?? name !== "sandbox";
  const nodeArgs = [...appNodeFlags(name), ...(options.nodeArgs ?? [])];
  let entry: string;
  if (RUNTIME === "bundle") {
    ensureBundles();
    entry = bundleOf(APPS[name].bundle);
  } else {
    nodeArgs.push("--import", "tsx");
    entry = APPS[name].source;
  }
  return launch(cleanup, name, entry, { ...env, ...pairsEnv(OVERRIDES[name]) }, { ...options, profile, nodeArgs });
}

/** One of the bench's helper scripts under bench/lib/child/. */
export function launchHelper(
  cleanup: Cleanup,
  name: string,
  script: string,
  env: Record<string, string>,
  options: LaunchOptions,
): Child {
  const nodeArgs = [...(options.nodeArgs ?? []), "--import", "tsx"];
  return launch(cleanup, name, `bench/lib/child/${script}`, env, { ...options, profile: false, nodeArgs });
}

function launch(
  cleanup: Cleanup,
  name: string,
  entry: string,
  env: Record<string, string>,
  options: LaunchOptions,
): Child {
  const args = [...(options.nodeArgs ?? [])];
  const profileDir = strEnv("BENCH_PROFILE_DIR", "");
  if (options.profile && profileDir) {
    // One folder per process: under tsx its loader runs on a worker thread, which writes a profile of its own (a
    // fixed --cpu-prof-name would make the two threads overwrite each other). The main thread's is the large one.
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const dir = resolve(ROOT, profileDir, `${options.stage}-${name}-${stamp}`);
    mkdirSync(dir, { recursive: true });
    args.push("--cpu-prof", `--cpu-prof-dir=${dir}`);
    console.error(`  [${name}] CPU profile → ${dir}`);
  }
  args.push(resolve(ROOT, entry));
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe", ...(options.ipc ? (["ipc"] as const) : [])],
  });
  if (child.pid === undefined) throw new Error(`${name}: could not start ${entry}`);

  let suppressed = 0;
  let shown = 0;
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on("line", (text) => {
      if (shown >= LOG_LINES_SHOWN) {
        suppressed++;
        return;
      }
      shown++;
      console.error(`  [${name}] ${text.length > 400 ? `${text.slice(0, 400)}…` : text}`);
    });
  }

  let stopping = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => {
    child.once("exit", (code, signal) => {
      if (!stopping && !cleanup.interrupted && code !== 0)
        console.error(`  [${name}] exited unexpectedly (code ${code}, signal ${signal})`);
      resolveExit({ code, signal });
    });
  });

  let stopped: Promise<void> | null = null;
  const handle: Child = {
    name,
    pid: child.pid,
    process: child,
    exited,
    get suppressedLines() {
      return suppressed;
    },
    stop(graceMs = 30_000) {
      stopped ??= (async () => {
        stopping = true;
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill("SIGTERM");
        let timer: NodeJS.Timeout | undefined;
        const killed = new Promise<void>((resolveKill) => {
          timer = setTimeout(() => {
            console.error(`  [${name}] did not stop within ${graceMs} ms after SIGTERM: SIGKILL`);
            child.kill("SIGKILL");
            resolveKill();
          }, graceMs);
        });
        await Promise.race([exited, killed]);
        clearTimeout(timer);
        await exited;
      })();
      return stopped;
    },
  };
  cleanup.add(`stop ${name}`, () => handle.stop());
  return handle;
}

/** Poll `url` until it answers 2xx; fails at once if `child` exits, or after `timeoutMs`. */
export async function waitUntilUp(url: string, child: Child, timeoutMs = 60_000): Promise<void> {
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  await eventually(
    async () => {
      if (exited) throw new Error(`${child.name} exited before ${url} answered`);
      return fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
        async (r) => {
          await r.arrayBuffer();
          return r.ok;
        },
        () => false,
      );
    },
    { timeoutMs, intervalMs: 200, what: `${child.name}: ${url} to answer` },
  );
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
