export { createSandbox, startSandbox, type Sandbox, type RunningSandbox } from "./sandbox.ts";
export { FIXTURE_TEMPLATES } from "./fixtures/templates.ts";
export { templateVariables } from "./graph/template-send.ts";
export { loadSandboxConfig, sandboxConfigSchema, sandboxOptionsFromConfig, type SandboxConfig } from "./config.ts";
export type {
  SandboxState,
  SentMessage,
  GraphRequestRecord,
  WebhookRecord,
  FaultRule,
  FaultMode,
  FaultRoute,
  SendEndpoint,
  ReadMark,
  ThreadControlRecord,
} from "./state.ts";
export type {
  WebhookPayload,
  WebhookValue,
  WebhookContact,
  UserPreferencesPayload,
  UserPreferenceItem,
  UserIdUpdatePayload,
  UserIdUpdateItem,
  WabaWebhookPayload,
  TemplateWebhookPayload,
  AccountWebhookPayload,
  MessagingHandoversPayload,
  HandoverValue,
  HandoverChange,
  ThreadRole,
} from "./webhooks.ts";
export type { Pricing } from "./pricing.ts";
export type { NumberStats } from "./stats.ts";
export { RETRY_WAITS_MS, RETRY_WINDOW_MS, retryWaitMs } from "./deliveries.ts";
export { MAX_STATUSES_PER_PAYLOAD } from "./statuses.ts";
export type { PendingRedelivery } from "./pending.ts";
export type {
  SandboxOptions,
  SandboxTemplate,
  TemplateComponent,
  TemplateButton,
  TemplateStatus,
  TemplateCategory,
  StatusDelays,
  PairRate,
  RuntimeConfig,
  PortfolioSettings,
  MessagingLimitTier,
} from "./types.ts";
