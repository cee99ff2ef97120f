import { ConfigError } from "@gw/config";
import { createLogger, type Logger } from "@gw/logger";
import { startTracing } from "@gw/tracing/exporter";

/** An app as its process runs it: started once, stopped (drained) on the first SIGTERM or SIGINT. */
export interface ProcessApp {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** What every process says about itself; each kind of process (worker, HTTP) adds its own wording. */
export interface ProcessSpec<Config extends { LOG_LEVEL: string }> {
  /** The `service` field of every log line. */
  service: string;
  /** Parses the environment; a ConfigError ends the process with exit code 78 (EX_CONFIG). */
  loadConfig: () => Config;
  create: (config: Config, logger: Logger) => ProcessApp;
  /** Longest the drain may take before the process exits anyway: the app's own stop bound plus a margin. */
  stopDeadlineMs?: (config: Config) => number;
}

interface Lifecycle {
  /** The log line of the first signal: what stopping waits for. */
  stopping: string;
  /** What a second signal leaves behind and who picks it up, for its log line. */
  leftBehind: string;
  /** Log an unhandled rejection and keep running (workers), rather than Node's default exit. */
  survivesUnhandledRejection: boolean;
}

/**
 * The `main` of a process: config or exit 78, a logger, start (a failure exits 1), and a drain on the first SIGTERM
 * or SIGINT, then exit 0; a second signal exits at once (130 for SIGINT, 143 for SIGTERM), the deadline is the last
 * resort.
 */
export async function runProcess<Config extends { LOG_LEVEL: string }>(
  spec: ProcessSpec<Config>,
  lifecycle: Lifecycle,
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
  // Spans are exported only when OTEL_EXPORTER_OTLP_ENDPOINT is set; `traceparent` is propagated either way.
  const tracing = startTracing({ service: `gateway-${spec.service}`, env: process.env });
  if (tracing.exporting) logger.info("exporting traces over OTLP");
  const app = spec.create(config, logger);

  if (lifecycle.survivesUnhandledRejection)
    process.on("unhandledRejection", (reason) => {
      logger.error("unhandled promise rejection", { error: reason instanceof Error ? reason.message : String(reason) });
    });

  let signalled = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) {
      logger.warn(`second signal received; exiting now (${lifecycle.leftBehind})`, { signal });
      process.exit(signal === "SIGINT" ? 130 : 143);
    }
    signalled = true;
    logger.info(lifecycle.stopping, { signal });
    if (spec.stopDeadlineMs)
      setTimeout(() => {
        logger.error("shutdown took too long; exiting");
        process.exit(1);
      }, spec.stopDeadlineMs(config)).unref();
    app
      .stop()
      // What is buffered is exported before exit; an unreachable collector only costs the exporter's timeout.
      .then(() => tracing.shutdown().catch(() => undefined))
      .then(
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
