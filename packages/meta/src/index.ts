export { createMetaClient } from "./client.ts";
export type { ListTemplatesOptions, MetaClient, MetaClientOptions } from "./client.ts";
export { MetaApiError, MetaCatalogueUnavailableError, MetaUnavailableError, MetaUnconfirmedError } from "./errors.ts";
export type { MetaUnconfirmedKind } from "./errors.ts";
export type * from "./types.ts";
export { MetaContact, MetaInboundItem, MetaStatusItem, readMetaWebhook } from "./webhook.ts";
export type { InboundGroup, MetaWebhookItems, QuarantinedItem } from "./webhook.ts";
