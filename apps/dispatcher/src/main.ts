import { runWorkerProcess } from "@gw/process";
import { loadDispatcherConfig } from "./config.ts";
import { createDispatcher } from "./dispatcher.ts";

await runWorkerProcess({
  service: "dispatcher",
  loadConfig: loadDispatcherConfig,
  create: (config, logger) => createDispatcher(config, { logger }),
  drains: "the attempts in flight",
  // The rows stay `delivering` and are picked up again (stalled-job recovery or the reconciler).
  leftBehind: "deliveries in flight are retried by the reconciler",
  // Beyond the longest possible attempt.
  stopDeadlineMs: (config) => config.WEBHOOK_TIMEOUT_MS + 20_000,
});
