export {
  API_KEY_NAME_MAX_LENGTH,
  API_KEY_PREFIX,
  createApiKey,
  hashApiKey,
  isWellFormedApiKey,
  listApiKeys,
  revokeApiKey,
} from "./api-keys.ts";
export type { ApiKeyView } from "./api-keys.ts";
export { API_KEY_SCOPES, API_KEY_SCOPE_DESCRIPTIONS, hasScope, isApiKeyScope, missingScopeMessage } from "./scopes.ts";
export type { ApiKeyScope } from "./scopes.ts";
export { createIntegration, createIntegrationKeys } from "./integration-creation.ts";
export type { CreationOutcome, IntegrationCreated } from "./integration-creation.ts";
export {
  DEFAULT_DIRECTORY_OPTIONS,
  NUMBER_CHANGES_CHANNEL,
  announceNumberChange,
  createAccountDirectory,
} from "./directory.ts";
export type { AccountDirectory, BusinessNumberRef, DirectoryOptions, SendingBlock } from "./directory.ts";
export type { AuthenticatedKey } from "./api-keys.ts";
export {
  DEFAULT_MAX_INTEGRATIONS_PER_ACCOUNT,
  DEFAULT_WEBHOOK_EVENTS,
  DEVELOPMENT_INTEGRATION_POLICY,
  IntegrationUrlError,
  PAYLOAD_VERSIONS,
  PRODUCTION_INTEGRATION_POLICY,
  WEBHOOK_EVENTS,
  addBusinessNumber,
  checkIntegrationUrl,
  createAccount,
  getIntegration,
  isPayloadVersion,
  listIntegrations,
  revealIntegrationSecret,
  rotateIntegrationSecret,
  setIntegration,
  updateIntegration,
  setIntegrationActive,
} from "./accounts.ts";
export { deleteIntegration, type DeletedIntegration } from "./delete-integration.ts";
export type {
  IntegrationInput,
  IntegrationPolicy,
  IntegrationSummary,
  NumberInput,
  PayloadVersion,
  WebhookEvent,
} from "./accounts.ts";
// The key ring's box, for the processes that build it from SECRETS_KEYS (dispatcher, panel, CLI).
export { SecretUnreadableError, createSecretBox } from "@gw/signer";
export { SIGNATURE_SCHEMES, isSignatureScheme, type SignatureScheme } from "@gw/signer";
export type { SecretBox, SecretKey } from "@gw/signer";
export { listAccountNumbers, listBusinessNumbersWithQuality } from "./numbers.ts";
export type { AccountNumberView, BusinessNumberQualityView } from "./numbers.ts";
export { listNumberSettings, updateNumberSettings } from "./number-settings.ts";
export type { NumberSettingsChange } from "./number-settings.ts";
