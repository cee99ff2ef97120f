import { ConfigError } from "@gw/config";
import { createLogger } from "@gw/logger";
import { loadCampaignWorkerConfig, type CampaignWorkerConfig } from "./config.ts";
import { createCampaignWorker } from "./worker.ts";

let config: CampaignWorkerConfig;
try {
  config = loadCampaignWorkerConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
  throw error;
}

const logger = createLogger({ service: "campaign-worker", level: config.LOG_LEVEL });
const worker = createCampaignWorker(config, { logger });

process.on("unhandledRejection", (reason) => {
  logger.error("unhandled promise rejection", {
    error: reason instanceof Error ? reason.message : String(reason),
  });
});

let signalled = false;
function onSignal(signal: NodeJS.Signals): void {
  if (signalled) {
    // A second signal: the operator does not want to wait. Recipients being sent stay `sending` and are settled by
    // the next worker's re-drive (same Idempotency-Key).
    logger.warn("second signal received; exiting now", { signal });
    process.exit(signal === "SIGINT" ? 130 : 143);
  }
  signalled = true;
  logger.info("stopping: no new recipients, waiting for the sends in flight", { signal });
  setTimeout(
    () => {
      logger.error("shutdown took too long; exiting");
      process.exit(1);
    },
    config.META_TIMEOUT_MS + config.CAMPAIGN_TURN_MAX_WAIT_MS + 20_000,
  ).unref();
  worker.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      logger.error("campaign worker failed to stop", { error: (error as Error).message });
      process.exit(1);
    },
  );
}
process.on("SIGTERM", onSignal);
process.on("SIGINT", onSignal);

try {
  await worker.start();
} catch (error) {
  logger.error("campaign worker failed to start", { error: (error as Error).message });
  process.exit(1);
}
