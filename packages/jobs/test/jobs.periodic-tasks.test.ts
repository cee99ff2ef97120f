import { afterEach, describe, expect, it } from "@jest/globals";
import type { Logger } from "@gw/logger";
import { eventually } from "@gw/testkit";
import { Registry } from "prom-client";
import { createPeriodicTasks, type PeriodicTasks } from "../src/index.ts";

// The registry every worker process runs its periodic tasks with (the dispatcher's housekeeping, the campaign
// worker's sweep): the same start and stop, a deadline, and the same metrics for each task.

interface Line {
  message: string;
  fields: Record<string, unknown>;
}

function recordingLogger(): { logger: Logger; warnings: Line[] } {
  const warnings: Line[] = [];
  const logger = {
    warn: (message: string, fields: Record<string, unknown> = {}) => warnings.push({ message, fields }),
  } as unknown as Logger;
  return { logger, warnings };
}

async function sample(registry: Registry, series: string): Promise<number> {
  const text = await registry.metrics();
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

let tasks: PeriodicTasks | undefined;
afterEach(async () => {
  await tasks?.stop();
  tasks = undefined;
});

describe("periodic tasks", () => {
  it("cuts a run that overruns its deadline: its signal is aborted, the overrun logged and counted, and the task runs again", async () => {
    const registry = new Registry();
    const { logger, warnings } = recordingLogger();
    tasks = createPeriodicTasks({ logger, registry });
    const signals: AbortSignal[] = [];
    tasks.add({
      name: "stuck_then_quick",
      intervalMs: 20,
      deadlineMs: 50,
      failure: "stuck task failed",
      // The first run never settles, and ignores its signal: only the deadline frees the task.
      run: (signal) => {
        signals.push(signal);
        return signals.length === 1 ? new Promise<void>(() => undefined) : Promise.resolve();
      },
    });
    tasks.start();

    await eventually(
      async () => (await sample(registry, 'gw_periodic_task_runs_total{task="stuck_then_quick",outcome="ok"}')) > 0,
      {
        what: "a run after the stuck one",
      },
    );
    expect(signals[0]?.aborted).toBe(true);
    expect(await sample(registry, 'gw_periodic_task_runs_total{task="stuck_then_quick",outcome="overran"}')).toBe(1);
    expect(warnings).toContainEqual({
      message: "periodic task overran its deadline; run cut, the task runs again next cycle",
      fields: { task: "stuck_then_quick", deadlineMs: 50 },
    });
  });

  it("counts each task's runs by outcome and times them, and logs a failure with the task's own line", async () => {
    const registry = new Registry();
    const { logger, warnings } = recordingLogger();
    tasks = createPeriodicTasks({ logger, registry });
    let calls = 0;
    const flaky = tasks.add({
      name: "flaky",
      intervalMs: 60_000,
      failure: "flaky task failed; trying again next cycle",
      run: () => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error("database down")) : Promise.resolve(calls);
      },
    });
    const steady = tasks.add({
      name: "steady",
      intervalMs: 60_000,
      failure: "steady failed",
      run: () => Promise.resolve("done"),
    });

    expect(await flaky.run()).toBeNull();
    expect(await flaky.run()).toBe(2);
    expect(await steady.run()).toBe("done");

    expect(await sample(registry, 'gw_periodic_task_runs_total{task="flaky",outcome="failed"}')).toBe(1);
    expect(await sample(registry, 'gw_periodic_task_runs_total{task="flaky",outcome="ok"}')).toBe(1);
    expect(await sample(registry, 'gw_periodic_task_runs_total{task="steady",outcome="ok"}')).toBe(1);
    expect(await sample(registry, 'gw_periodic_task_duration_seconds_count{task="flaky"}')).toBe(2);
    expect(await sample(registry, 'gw_periodic_task_duration_seconds_count{task="steady"}')).toBe(1);
    expect(warnings).toEqual([
      { message: "flaky task failed; trying again next cycle", fields: { task: "flaky", error: "database down" } },
    ]);
  });

  it("joins a run in progress, runs again at once while a run leaves more to do, and stop aborts and waits for the run in progress", async () => {
    const registry = new Registry();
    const { logger } = recordingLogger();
    tasks = createPeriodicTasks({ logger, registry });
    let runs = 0;
    let release: (() => void) | undefined;
    let stoppedRunEnded = false;
    const backlog = tasks.add<number>({
      name: "backlog",
      intervalMs: 60_000,
      failure: "backlog failed",
      again: (left) => left > 0,
      run: async (signal) => {
        runs += 1;
        // Three runs drain the backlog; the fourth waits until released or aborted.
        if (runs <= 3) return 3 - runs;
        await new Promise<void>((resolve) => {
          release = resolve;
          signal.addEventListener("abort", () => resolve());
        });
        stoppedRunEnded = signal.aborted;
        return 0;
      },
    });
    tasks.start();
    await eventually(() => runs === 3, { what: "the backlog drained without waiting for the interval" });

    const joined = [backlog.run(), backlog.run()];
    await eventually(() => release !== undefined, { what: "the fourth run" });
    expect(runs).toBe(4);
    await tasks.stop();
    expect(stoppedRunEnded).toBe(true);
    expect(await Promise.all(joined)).toEqual([0, 0]);
    tasks = undefined;
  });
});
