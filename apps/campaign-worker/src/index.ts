export { createCampaignWorker } from "./worker.ts";
export type { CampaignWorker, CampaignWorkerDeps } from "./worker.ts";
export { campaignWorkerConfigSchema, loadCampaignWorkerConfig } from "./config.ts";
export type { CampaignWorkerConfig } from "./config.ts";
