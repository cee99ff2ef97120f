export { API_KEY_PREFIX, authenticateApiKey, createApiKey, hashApiKey, revokeApiKey } from "./api-keys.ts";
export type { AuthenticatedKey } from "./api-keys.ts";
export {
  WEBHOOK_EVENTS,
  addBusinessNumber,
  createAccount,
  listIntegrations,
  resolveBusinessNumber,
  rotateIntegrationSecret,
  setIntegration,
} from "./accounts.ts";
export type { IntegrationInput, NumberInput, WebhookEvent } from "./accounts.ts";
