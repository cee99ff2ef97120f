import type { Logger } from "@gw/logger";
import { Counter, Histogram, type Registry } from "prom-client";

/** A run's deadline when its task names none: its interval, and never less than this. */
const MIN_DEFAULT_DEADLINE_MS = 60_000;

/** One periodic task of a process (a sweep, a purge...), as it registers it. */
export interface PeriodicTaskSpec<T> {
  /** The `task` label of its metrics and the `task` field of its log lines, snake_case (`delivery_sweep`). */
  name: string;
  intervalMs: number;
  /**
   * Longest one run may take; by default its interval, and never less than a minute. Past it the run is cut: its
   * signal is aborted, the overrun is logged and counted, and the task may run again (a run that ignores the signal
   * settles on its own, unwaited).
   */
  deadlineMs?: number;
  /** One run. A task that works in batches stops between two once `signal` is aborted (its deadline, or stop). */
  run(signal: AbortSignal): Promise<T>;
  /** The log line (warn) of a failed run; the next cycle tries again. */
  failure: string;
  /** True when a run left more to do: the next one starts at once instead of after the interval. */
  again?(result: T): boolean;
}

export interface PeriodicTask<T> {
  /** One run now; a run in progress is joined. Resolves null when it failed or was cut at its deadline. */
  run(): Promise<T | null>;
}

/** The periodic tasks of one process, started and stopped together, each with the same deadline and metrics. */
export interface PeriodicTasks {
  add<T>(spec: PeriodicTaskSpec<T>): PeriodicTask<T>;
  /** Every task runs now, then every interval, never overlapping itself. */
  start(): void;
  /** No new run; the runs in progress are aborted (their signal) and waited for. */
  stop(): Promise<void>;
}

type Settled<T> = { kind: "ok"; result: T } | { kind: "failed"; error: Error };

/**
 * A process's registry of periodic tasks. Each task's runs are counted in `gw_periodic_task_runs_total{task,
 * outcome}` (ok, failed, overran) and timed in `gw_periodic_task_duration_seconds{task}`, on the process's registry.
 */
export function createPeriodicTasks(deps: { logger: Logger; registry: Registry }): PeriodicTasks {
  const { logger } = deps;
  const runs = new Counter({
    name: "gw_periodic_task_runs_total",
    help: "Execuções das tarefas periódicas do processo, por tarefa e resultado: ok, failed (falhou; a próxima tenta de novo) ou overran (passou do prazo e foi cortada)",
    labelNames: ["task", "outcome"] as const,
    registers: [deps.registry],
  });
  const duration = new Histogram({
    name: "gw_periodic_task_duration_seconds",
    help: "Duração das execuções das tarefas periódicas, por tarefa (as cortadas contam até o prazo)",
    labelNames: ["task"] as const,
    buckets: [0.01, 0.05, 0.25, 1, 5, 15, 60, 300, 900, 3600],
    registers: [deps.registry],
  });
  const tasks: { start(): void; stop(): Promise<void> }[] = [];

  function schedule<T>(spec: PeriodicTaskSpec<T>): PeriodicTask<T> & { start(): void; stop(): Promise<void> } {
    const deadlineMs = spec.deadlineMs ?? Math.max(spec.intervalMs, MIN_DEFAULT_DEADLINE_MS);
    const task = spec.name;
    let current: { promise: Promise<T | null>; abort: AbortController } | null = null;
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;

    function settle(outcome: Settled<T> | "overran", abort: AbortController, work: Promise<Settled<T>>): T | null {
      if (outcome === "overran") {
        abort.abort();
        runs.inc({ task, outcome: "overran" });
        logger.warn("periodic task overran its deadline; run cut, the task runs again next cycle", {
          task,
          deadlineMs,
        });
        // The cut run may still fail once it settles: said, not counted again.
        void work.then((late) => {
          if (late.kind === "failed") logger.warn(spec.failure, { task, error: late.error.message });
        });
        return null;
      }
      runs.inc({ task, outcome: outcome.kind });
      if (outcome.kind === "ok") return outcome.result;
      logger.warn(spec.failure, { task, error: outcome.error.message });
      return null;
    }

    function run(): Promise<T | null> {
      if (current) return current.promise;
      const abort = new AbortController();
      const timed = duration.startTimer({ task });
      let deadline: NodeJS.Timeout | undefined;
      const overran = new Promise<"overran">((resolve) => {
        deadline = setTimeout(() => resolve("overran"), deadlineMs);
      });
      const work = spec.run(abort.signal).then(
        (result): Settled<T> => ({ kind: "ok", result }),
        (error: unknown): Settled<T> => ({
          kind: "failed",
          error: error instanceof Error ? error : new Error(String(error)),
        }),
      );
      const promise = Promise.race([work, overran])
        .then((outcome) => {
          clearTimeout(deadline);
          timed();
          return settle(outcome, abort, work);
        })
        .finally(() => {
          current = null;
        })
        .then((result) => {
          if (result !== null && !stopped && timer !== undefined && spec.again?.(result))
            setImmediate(() => void run());
          return result;
        });
      current = { promise, abort };
      return promise;
    }

    return {
      run,
      start() {
        stopped = false;
        timer = setInterval(() => void run(), spec.intervalMs);
        void run();
      },
      async stop() {
        stopped = true;
        if (timer) clearInterval(timer);
        current?.abort.abort();
        await current?.promise;
      },
    };
  }

  return {
    add(spec) {
      const scheduled = schedule(spec);
      tasks.push(scheduled);
      return { run: () => scheduled.run() };
    },
    start() {
      for (const task of tasks) task.start();
    },
    async stop() {
      await Promise.all(tasks.map((task) => task.stop()));
    },
  };
}
