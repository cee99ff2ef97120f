import { ConfigError } from "@gw/config";
import { createLogger, type Logger } from "@gw/logger";

/** A worker app as its process runs it: started once, stopped (drained) on the first SIGTERM or SIGINT. */
export interface WorkerApp {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface WorkerProcessSpec<Config extends { LOG_LEVEL: string }> {
  /** The `service` field of every log line. */
  service: string;
  /** Parses the environment; a ConfigError ends the process with exit code 78 (EX_CONFIG). */
  loadConfig: () => Config;
  create: (config: Config, logger: Logger) => WorkerApp;
  /** What stopping waits for, for the log line ("the attempts in flight"). */
  drains: string;
  /** What a second signal leaves behind and who picks it up, for the log line. */
  leftBehind: string;
  /** Longest the drain may take before the process exits anyway: the app's own stop bound plus a margin. */
  stopDeadlineMs: (config: Config) => number;
}

/**
 * The `main` of a worker process (the dispatcher, the campaign worker): config or exit 78, a logger, start, and a
 * drain on the first signal (a second one exits at once; the deadline is the last resort).
 */
export async function runWorkerProcess<Config extends { LOG_LEVEL: string }>(
  spec: WorkerProcessSpec<Config>,
): Promise<void> {
  let config: Config;
  try {
    config = spec.loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const logger = createLogger({ service: spec.service, level: config.LOG_LEVEL });
  const app = spec.create(config, logger);

  process.on("unhandledRejection", (reason) => {
    logger.error("unhandled promise rejection", { error: reason instanceof Error ? reason.message : String(reason) });
  });

  let signalled = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) {
      logger.warn(`second signal received; exiting now (${spec.leftBehind})`, { signal });
      process.exit(signal === "SIGINT" ? 130 : 143);
    }
    signalled = true;
    logger.info(`stopping: no new jobs, waiting for ${spec.drains}`, { signal });
    setTimeout(() => {
      logger.error("shutdown took too long; exiting");
      process.exit(1);
    }, spec.stopDeadlineMs(config)).unref();
    app.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error(`${spec.service} failed to stop`, { error: (error as Error).message });
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);

  try {
    await app.start();
  } catch (error) {
    logger.error(`${spec.service} failed to start`, { error: (error as Error).message });
    process.exit(1);
  }
}
