import { z } from "zod";
import { WebhookRequestHeaders } from "./webhooks.ts";

// Issue 21: an integration signs with the contract's X-PT-Signature (`pt`, the default) or with the Standard Webhooks
// scheme (https://www.standardwebhooks.com), chosen per integration in the panel or with `pnpm gateway integration set
// --signature-scheme`. Both sets of signature headers, for the OpenAPI document's webhooks.

const ONLY_PT = " Sent only when the integration's signature scheme is `pt` (the default).";
const ONLY_STANDARD = " Sent only when the integration's signature scheme is `standard-webhooks`.";

/** The headers of a webhook request under either scheme (spec 6.1 plus the Standard Webhooks ones). */
export const SignedWebhookRequestHeaders = WebhookRequestHeaders.extend({
  "X-PT-Timestamp": WebhookRequestHeaders.shape["X-PT-Timestamp"]
    .optional()
    .describe(`Unix timestamp in seconds; part of the signature; changes on every attempt.${ONLY_PT}`),
  "X-PT-Signature": WebhookRequestHeaders.shape["X-PT-Signature"]
    .optional()
    .describe(
      '`sha256=` plus the lowercase-hex HMAC-SHA256 of `X-PT-Timestamp + "." + raw body` with the signing secret (spec 5.4).' +
        ONLY_PT,
    ),
  "webhook-id": z
    .string()
    .regex(/^[1-9]\d*$/)
    .optional()
    .describe(
      `Standard Webhooks message id: the delivery id (equals \`delivery_id\` of the body and X-PT-Delivery-Id); the same on every attempt and resend, so deduplicate on it.${ONLY_STANDARD}`,
    )
    .meta({ example: "2207" }),
  "webhook-timestamp": z
    .string()
    .regex(/^\d{1,12}$/)
    .optional()
    .describe(`Unix timestamp in seconds of this attempt; part of the signature.${ONLY_STANDARD}`)
    .meta({ example: "1767225600" }),
  "webhook-signature": z
    .string()
    .regex(/^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$/)
    .optional()
    .describe(
      '`v1,` plus the base64 HMAC-SHA256 of `webhook-id + "." + webhook-timestamp + "." + raw body`, keyed with the ' +
        "base64-decoded part of the `whsec_` secret the panel shows; during a secret rotation's overlap a second " +
        `space-separated \`v1,\` value is made with the replaced secret. Verify with an official Standard Webhooks library.${ONLY_STANDARD}`,
    )
    .meta({ example: "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=" }),
});
