// @pt-gateway/client: the gateway's public API, typed from its OpenAPI document (openapi-typescript types,
// openapi-fetch at run time), with retries, pagination and the webhook check. Quick start: docs/client.md.
export { createGatewayClient, GatewayRequestError, requestError } from "./client.ts";
export type { GatewayClient, GatewayClientOptions } from "./client.ts";
export { retryAfterMs } from "./retry.ts";
export type { RetryOptions } from "./retry.ts";
export { iterateCampaignRecipients, iterateCampaigns, iterateDeliveries, iterateOrders } from "./pages.ts";
export type { Campaign, CampaignRecipient, Delivery, Order } from "./pages.ts";
export { downloadMedia, uploadMedia } from "./media.ts";
export type { DownloadedMedia, UploadedMedia, UploadMediaInput } from "./media.ts";
export { OPERATIONS } from "./operations.ts";
export type { OperationId } from "./operations.ts";
export type { components, operations, paths, webhooks } from "./schema.ts";
export {
  describeVerifyFailure,
  parseWebhookEvent,
  verifyWebhook,
  WebhookHeaders,
  WebhookPayloadError,
} from "@pt-gateway/webhooks";
export type { GatewayWebhookEvent, VerifyResult, VerifyWebhookInput, WebhookEventName } from "@pt-gateway/webhooks";
