import { runProcess, type ProcessSpec } from "./run.ts";

export interface WorkerProcessSpec<Config extends { LOG_LEVEL: string }> extends ProcessSpec<Config> {
  /** What stopping waits for, for the log line ("the attempts in flight"). */
  drains: string;
  /** What a second signal leaves behind and who picks it up, for the log line. */
  leftBehind: string;
  stopDeadlineMs: (config: Config) => number;
}

/**
 * The `main` of a worker process (the dispatcher, the campaign worker): config or exit 78, start, and a drain of the
 * jobs in progress on the first signal, bounded by the worker's deadline. An unhandled rejection is logged, and the
 * worker keeps running.
 */
export function runWorkerProcess<Config extends { LOG_LEVEL: string }>(spec: WorkerProcessSpec<Config>): Promise<void> {
  return runProcess(spec, {
    stopping: `stopping: no new jobs, waiting for ${spec.drains}`,
    leftBehind: spec.leftBehind,
    survivesUnhandledRejection: true,
  });
}
