import { runWorkerProcess } from "@gw/process";
import { loadCampaignWorkerConfig } from "./config.ts";
import { createCampaignWorker } from "./worker.ts";

await runWorkerProcess({
  service: "campaign-worker",
  loadConfig: loadCampaignWorkerConfig,
  create: (config, logger) => createCampaignWorker(config, { logger }),
  drains: "the sends in flight",
  // Recipients being sent stay `sending` and are settled by the next worker's re-drive (same Idempotency-Key).
  leftBehind: "recipients being sent are settled by the next re-drive",
  // Beyond the longest send: a turn wait and a provider call.
  stopDeadlineMs: (config) => config.META_TIMEOUT_MS + config.CAMPAIGN_TURN_MAX_WAIT_MS + 20_000,
});
