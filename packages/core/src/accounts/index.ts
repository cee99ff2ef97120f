export { API_KEY_PREFIX, createApiKey, hashApiKey, isWellFormedApiKey, revokeApiKey } from "./api-keys.ts";
export { DEFAULT_DIRECTORY_OPTIONS, createAccountDirectory } from "./directory.ts";
export type { AccountDirectory, BusinessNumberRef, DirectoryOptions } from "./directory.ts";
export type { AuthenticatedKey } from "./api-keys.ts";
export {
  DEVELOPMENT_INTEGRATION_POLICY,
  IntegrationUrlError,
  PRODUCTION_INTEGRATION_POLICY,
  WEBHOOK_EVENTS,
  addBusinessNumber,
  checkIntegrationUrl,
  createAccount,
  listIntegrations,
  rotateIntegrationSecret,
  setIntegration,
} from "./accounts.ts";
export type { IntegrationInput, IntegrationPolicy, NumberInput, WebhookEvent } from "./accounts.ts";
