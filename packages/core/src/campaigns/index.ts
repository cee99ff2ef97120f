export {
  RECIPIENT_EXPORT_COLUMNS,
  campaignTemplateRefusal,
  cancelCampaign,
  createCampaign,
  exportCampaignRecipients,
  getCampaign,
  listCampaignRecipients,
  listCampaigns,
  pauseCampaign,
  resumeCampaign,
  startCampaign,
} from "./campaigns.ts";
export type {
  CampaignActor,
  CampaignControlDeps,
  CampaignCostEstimate,
  CampaignDetail,
  CampaignProgress,
  CampaignReadDeps,
  CampaignRunningCost,
  CampaignView,
  CampaignWaker,
  CreateCampaignInput,
  RecipientView,
} from "./campaigns.ts";
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
