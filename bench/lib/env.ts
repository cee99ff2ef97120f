// Bench settings read from the environment: numbers with a default and a floor, and `KEY=VALUE` lists that are
// passed through to the apps. A bad value stops the bench with a message naming the variable.
import { randomBytes } from "node:crypto";
import { testEnv } from "@gw/testkit";

export function intEnv(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  return value;
}

export function strEnv(name: string, fallback: string): string {
  const raw = process.env[name];
  return raw === undefined || raw.trim() === "" ? fallback : raw.trim();
}

export function choiceEnv<T extends string>(name: string, choices: readonly T[], fallback: T): T {
  const raw = strEnv(name, fallback);
  const found = choices.find((c) => c === raw);
  if (!found) throw new Error(`${name} must be one of ${choices.join(", ")}, got "${raw}"`);
  return found;
}

/** `BENCH_API_ENV="API_RATE_LIMIT_POINTS=10 DATABASE_POOL_SIZE=20"` → extra environment for one app. */
export function pairsEnv(name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of strEnv(name, "").split(/\s+/).filter(Boolean)) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new Error(`${name}: "${pair}" is not KEY=VALUE`);
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

export interface StackEnv {
  databaseUrl: string;
  redisUrl: string;
}

/**
 * The PostgreSQL (`gateway_bench`, fresh per run) and Redis that scripts/bench.sh exported. A database of another
 * name is accepted if it ends in `_bench` (a bench run by hand beside someone else's, on a database of its own);
 * anything else is refused, so a bench never writes into a database that holds real data.
 */
export function stackEnv(): StackEnv {
  const { databaseUrl, redisUrl } = testEnv();
  if (!/\/\w*_bench(\?|$)/.test(databaseUrl)) {
    throw new Error(
      `DATABASE_URL does not name gateway_bench nor another *_bench database (${new URL(databaseUrl).pathname}): run the benches with \`pnpm bench <stage>\``,
    );
  }
  return { databaseUrl, redisUrl };
}

/** A Redis key prefix of the stage's own; every key under `<prefix>:` is deleted at the end. */
export function stagePrefix(stage: string): string {
  return `bench-${stage}-${randomBytes(3).toString("hex")}`;
}

/** Secrets shared by the sandbox, the API and the signed payloads the benches build. */
export const SECRETS = {
  META_APP_SECRET: "bench-app-secret",
  META_ACCESS_TOKEN: "bench-access-token",
  META_VERIFY_TOKEN: "bench-verify-token",
} as const;

/** Commonly used knobs, with the same meaning in every stage. */
export const common = {
  concurrency: () => intEnv("BENCH_CONCURRENCY", 16),
  /** BENCH_TIMEOUT_S: each stage says what it bounds and picks its default. */
  timeoutMs: (defaultSeconds = 120) => intEnv("BENCH_TIMEOUT_S", defaultSeconds) * 1000,
  dispatcherConcurrency: () => intEnv("BENCH_DISPATCHER_CONCURRENCY", 20),
};
