import { ConfigError } from "@gw/config";
import { createLogger } from "@gw/logger";
import { loadDispatcherConfig, type DispatcherConfig } from "./config.ts";
import { createDispatcher } from "./dispatcher.ts";

let config: DispatcherConfig;
try {
  config = loadDispatcherConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
  throw error;
}

const logger = createLogger({ service: "dispatcher", level: config.LOG_LEVEL });
const dispatcher = createDispatcher(config, { logger });

process.on("unhandledRejection", (reason) => {
  logger.error("unhandled promise rejection", {
    error: reason instanceof Error ? reason.message : String(reason),
  });
});

let signalled = false;
function onSignal(signal: NodeJS.Signals): void {
  if (signalled) {
    // A second signal: the operator does not want to wait for the attempts in flight. The rows stay
    // `delivering` and are picked up again (stalled-job recovery or the reconciler).
    logger.warn("second signal received; exiting now", { signal });
    process.exit(signal === "SIGINT" ? 130 : 143);
  }
  signalled = true;
  logger.info("stopping: no new jobs, waiting for the attempts in flight", { signal });
  // Last resort if something hangs beyond the longest possible attempt.
  setTimeout(() => {
    logger.error("shutdown took too long; exiting");
    process.exit(1);
  }, config.WEBHOOK_TIMEOUT_MS + 20_000).unref();
  dispatcher.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      logger.error("dispatcher failed to stop", { error: (error as Error).message });
      process.exit(1);
    },
  );
}
process.on("SIGTERM", onSignal);
process.on("SIGINT", onSignal);

try {
  await dispatcher.start();
} catch (error) {
  logger.error("dispatcher failed to start", { error: (error as Error).message });
  process.exit(1);
}
