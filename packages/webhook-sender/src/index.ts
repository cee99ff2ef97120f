// The dispatcher's HTTP client for integrators' endpoints (node:http, keep-alive agents) and the SSRF address guard
// it connects through, which the gateway also applies to a webhook URL when it is registered.
export { classifyError, createWebhookSender } from "./sender.ts";
export type { SendErrorKind, WebhookRequest, WebhookResult, WebhookSender, WebhookSenderOptions } from "./sender.ts";
export {
  ADDRESS_REFUSED_CODE,
  classifyAddress,
  createGuardedLookup,
  ipLiteralHost,
  isLocalhostName,
} from "./address-guard.ts";
export type { AddressClass, Resolver } from "./address-guard.ts";
