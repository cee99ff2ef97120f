import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { eventually, isolatedDatabase } from "@gw/testkit";
import { metricsOf, openBed, sample, type DispatcherBed } from "./support.ts";

// The dispatcher's five housekeeping loops are one registry of periodic tasks (@gw/jobs): each runs at start and is
// counted and timed under the same metrics, by its task name.

const TASKS = ["delivery_sweep", "idempotency_purge", "retention", "pricing_rollup", "replay_sweep"];

let bed: DispatcherBed;

beforeAll(async () => {
  bed = openBed(await isolatedDatabase());
});

afterAll(async () => {
  await bed.close();
});

describe("dispatcher housekeeping", () => {
  it("runs the sweep, the expired-keys purge, retention, the pricing rollup and the replay sweep as periodic tasks, each counted and timed on /metrics", async () => {
    const dispatcher = await bed.startDispatcher();

    const text = await eventually(
      async () => {
        const body = await metricsOf(dispatcher);
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
