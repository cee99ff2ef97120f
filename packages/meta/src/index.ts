export { createMetaClient } from "./client.ts";
export type { ListTemplatesOptions, MetaClient, MetaClientOptions } from "./client.ts";
// Every error the client throws, with its kinds.
export * from "./errors.ts";
export type { MetaUploadInput, MetaUploadResult } from "./upload.ts";
export { GRAPH_VERSION_EXPIRY, GRAPH_VERSION_WARNING_DAYS, graphVersionExpiry } from "./versions.ts";
export type * from "./types.ts";
export {
  ACCOUNT_EVENT_FIELDS,
  MetaContact,
  MetaInboundItem,
  MetaStatusItem,
  MetaTemplateQualityUpdate,
  MetaTemplateStatusUpdate,
  readMetaWebhook,
} from "./webhook.ts";
export type {
  AccountEventField,
  InboundGroup,
  InboundMessage,
  MetaAccountEvent,
  MetaContactCard,
  MetaHandover,
  MetaIdentityChange,
  MetaPricing,
  MetaStatus,
  MetaTemplateNotice,
  MetaUserRef,
  MetaWebhookItems,
  QuarantinedItem,
} from "./webhook.ts";
