import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { eventually, isolatedDatabase, silentLogger, testEnv } from "@gw/testkit";
import { createDispatcher, type Dispatcher } from "../src/index.ts";
import { testConfig, testSettings } from "./support.ts";

// The dispatcher's five housekeeping loops are one registry of periodic tasks (@gw/jobs): each runs at start and is
// counted and timed under the same metrics, by its task name.

const TASKS = ["delivery_sweep", "idempotency_purge", "retention", "pricing_rollup", "replay_sweep"];

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let dispatcher: Dispatcher | undefined;

beforeAll(async () => {
  database = await isolatedDatabase();
});

afterAll(async () => {
  await dispatcher?.stop();
  await database.drop();
});

function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("dispatcher housekeeping", () => {
  it("runs the sweep, the expired-keys purge, retention, the pricing rollup and the replay sweep as periodic tasks, each counted and timed on /metrics", async () => {
    const env = testEnv();
    const settings = testSettings({ databaseUrl: database.url, redisUrl: env.redisUrl, prefix: env.redisPrefix });
    dispatcher = createDispatcher(testConfig(settings), { logger: silentLogger, db: database.db });
    await dispatcher.start();

    const text = await eventually(
      async () => {
        const body = await (await fetch(`http://127.0.0.1:${dispatcher?.port}/metrics`)).text();
        const ran = TASKS.every(
          (task) => (sample(body, `gw_periodic_task_runs_total{task="${task}",outcome="ok"}`) ?? 0) >= 1,
        );
        return ran ? body : null;
      },
      { what: "a successful run of every housekeeping task" },
    );
    for (const task of TASKS) {
      expect(sample(text, `gw_periodic_task_runs_total{task="${task}",outcome="failed"}`) ?? 0).toBe(0);
      expect(sample(text, `gw_periodic_task_duration_seconds_count{task="${task}"}`)).toBeGreaterThanOrEqual(1);
    }
    // The sweep is the same task reconcileNow() runs.
    expect(await dispatcher.reconcileNow()).toMatchObject({ queued: 0, expired: 0 });
  });
});
