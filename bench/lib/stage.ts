// The frame every stage runs in: its own Redis prefix and clients, a cleanup list run at the end (or on
// Ctrl-C), the one-line summary printed last, and the JSON results file.
import { createDb, type Db } from "@gw/db";
import type { Redis } from "@gw/jobs";
import { Cleanup } from "./cleanup.ts";
import { stackEnv, stagePrefix, type StackEnv } from "./env.ts";
import { benchRedis, deleteKeysWithPrefix } from "./redis.ts";
import { writeResults } from "./results.ts";

export interface StageContext {
  name: string;
  startedAt: Date;
  /** This run's REDIS_KEY_PREFIX; every key under `<prefix>:` is deleted at the end. */
  prefix: string;
  stack: StackEnv;
  cleanup: Cleanup;
  /** The bench's own clients (seeding and checks), not the apps'. */
  db: Db;
  redis: Redis;
}

export interface StageOutcome {
  /** Printed last, on one line, after `<stage>: `. */
  summary: string;
  results: Record<string, unknown>;
}

export async function runStage(name: string, body: (ctx: StageContext) => Promise<StageOutcome>): Promise<void> {
  const stack = stackEnv();
  const cleanup = new Cleanup();
  const db = createDb({ url: stack.databaseUrl, poolSize: 4 });
  const redis = benchRedis(stack.redisUrl);
  const ctx: StageContext = { name, startedAt: new Date(), prefix: stagePrefix(name), stack, cleanup, db, redis };
  cleanup.add("close the bench's database client", () => db.$disconnect());
  cleanup.add("close the bench's Redis client", () => redis.quit());
  cleanup.add("delete the stage's Redis keys", async () => {
    const started = Date.now();
    const deleted = await deleteKeysWithPrefix(redis, ctx.prefix);
    console.log(
      `deleted ${deleted} Redis keys under ${ctx.prefix}:* in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  });
  let outcome: StageOutcome | null = null;
  let file: string | null = null;
  try {
    outcome = await body(ctx);
    file = writeResults(name, ctx.startedAt, { redisPrefix: ctx.prefix, ...outcome.results });
  } catch (error) {
    if (cleanup.interrupted) console.error(`${name} bench interrupted (${cleanup.interrupted})`);
    else
      console.error(
        `\n${name} bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    process.exitCode = 1;
  } finally {
    await cleanup.run();
  }
  if (outcome && file) {
    console.log(`results: ${file}`);
    console.log(`\n${name}: ${outcome.summary}`);
  }
}

/** Prints a section heading. */
export function heading(text: string): void {
  console.log(`\n── ${text}`);
}
