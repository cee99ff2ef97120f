export { getCampaign, listCampaignRecipients, listCampaigns, runningCampaignsProgress } from "./views.ts";
export type {
  CampaignDetail,
  CampaignReadDeps,
  CampaignView,
  RecipientView,
  RunningCampaignsProgress,
} from "./views.ts";
export type { CampaignActor, CampaignProgress } from "./model.ts";
export type { CampaignCostEstimate, CampaignRunningCost } from "./costs.ts";
export { campaignTemplateRefusal, createCampaign } from "./creation.ts";
export type { CreateCampaignInput } from "./creation.ts";
export { cancelCampaign, pauseCampaign, resumeCampaign, startCampaign } from "./state-machine.ts";
export type { CampaignControlDeps, CampaignWaker } from "./state-machine.ts";
export { pauseCampaignsOfNumbers } from "./health-pauses.ts";
export { RECIPIENT_EXPORT_COLUMNS, exportCampaignRecipients } from "./export.ts";
export { RecipientsFileError, rowsFromCsv, rowsFromList, validateRecipients } from "./recipients.ts";
export type {
  AcceptedRecipient,
  GivenRow,
  RecipientParameters,
  RecipientsFileProblem,
  RejectedRow,
} from "./recipients.ts";
export {
  DEFAULT_CAMPAIGN_RUN_SETTINGS,
  SKIPPED_CODES,
  campaignsToWake,
  recipientIdempotencyKey,
  runCampaignTick,
} from "./runner.ts";
export type { CampaignRunSettings, CampaignRunnerDeps, TickOutcome } from "./runner.ts";
