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
} from "./state.ts";
export type { WebhookPayload, WebhookValue } from "./webhooks.ts";
export type {
  SandboxOptions,
  SandboxTemplate,
  TemplateComponent,
  TemplateButton,
  TemplateStatus,
  TemplateCategory,
  StatusDelays,
  RuntimeConfig,
} from "./types.ts";
