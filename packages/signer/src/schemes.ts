// The two ways an integration's webhooks can be signed (issue 21). `pt` is the contract's (spec 5.4, 6.1) and every
// integration's default; `standard-webhooks` follows https://www.standardwebhooks.com so receivers can verify with
// the official libraries. Both sign the same body bytes with the same stored secret; only the headers differ.
import { createHmac } from "node:crypto";

export const SIGNATURE_SCHEMES = ["pt", "standard-webhooks"] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];
export const DEFAULT_SIGNATURE_SCHEME: SignatureScheme = "pt";

/**
 * Webhook signature of spec 5.4: HMAC-SHA256 over `${timestamp}.${rawBody}`, lowercase hex, `sha256=` prefix.
 * `rawBody` must be the exact bytes sent; re-serialized JSON may differ.
 */
export function signWebhook(secret: string, timestamp: number | string, rawBody: string | Buffer): string {
  const hmac = createHmac("sha256", secret);
  hmac.update(`${timestamp}.`);
  hmac.update(rawBody);
  return `sha256=${hmac.digest("hex")}`;
}

export function isSignatureScheme(value: unknown): value is SignatureScheme {
  return typeof value === "string" && (SIGNATURE_SCHEMES as readonly string[]).includes(value);
}

/** Header names of the Standard Webhooks scheme (lowercase, as the specification and its libraries write them). */
export const StandardWebhookHeaders = {
  id: "webhook-id",
  timestamp: "webhook-timestamp",
  signature: "webhook-signature",
} as const;

const SECRET_PREFIX = "whsec_";
const BASE64_BODY = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * The HMAC key the Standard Webhooks scheme signs with, for a stored signing secret. The gateway's secrets are
 * `whsec_` + base64url of 32 random bytes; the key is those bytes, as the libraries decode `whsec_<base64>`. A
 * secret of another shape (none is generated, but a row may hold one) uses its UTF-8 bytes.
 */
export function standardWebhooksKey(secret: string): Buffer {
  if (secret.startsWith(SECRET_PREFIX)) {
    const body = secret.slice(SECRET_PREFIX.length);
    if (BASE64_BODY.test(body)) {
      const key = Buffer.from(body, "base64");
      // Only a body that is exactly some bytes' encoding (either alphabet, padded or not) is read as base64.
      const canonical = body.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
      if (key.length > 0 && key.toString("base64url") === canonical) return key;
    }
  }
  return Buffer.from(secret, "utf8");
}

/**
 * The secret as a Standard Webhooks receiver is given it: `whsec_` + standard, padded base64 of the key, the form
 * the official libraries (and Svix's) accept. The stored secret itself is unchanged.
 */
export function standardWebhooksSecret(secret: string): string {
  return `${SECRET_PREFIX}${standardWebhooksKey(secret).toString("base64")}`;
}

/** The secret as the integrator uses it under `scheme`: as stored for `pt`, `whsec_<base64>` for the standard. */
export function displayedSigningSecret(scheme: SignatureScheme, secret: string): string {
  return scheme === "standard-webhooks" ? standardWebhooksSecret(secret) : secret;
}

/**
 * One Standard Webhooks signature: `v1,` + base64 of HMAC-SHA256(key, `${id}.${timestamp}.${body}`), with the key
 * of `standardWebhooksKey(secret)`.
 */
export function signStandardWebhook(
  secret: string,
  id: string,
  timestamp: number | string,
  rawBody: string | Buffer,
): string {
  const hmac = createHmac("sha256", standardWebhooksKey(secret));
  hmac.update(`${id}.${timestamp}.`);
  hmac.update(rawBody);
  return `v1,${hmac.digest("base64")}`;
}

export interface SignatureInput {
  /** The current secret, and the replaced one while a rotation's overlap lasts. */
  secrets: { current: string; previous: string | null };
  /** The delivery's id: X-PT-Delivery-Id is sent apart; `webhook-id` is this value. */
  deliveryId: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  /** The exact bytes sent. */
  body: string;
}

/**
 * The signature headers of one attempt under `scheme`, in the order they are sent.
 * - `pt`: X-PT-Timestamp, X-PT-Signature (current secret) and, during an overlap, X-PT-Signature-Previous.
 * - `standard-webhooks`: webhook-id (the delivery id: stable across attempts and manual resends, so a receiver
 *   dedupes on it), webhook-timestamp (this attempt's), webhook-signature with one `v1,` value per active secret,
 *   current first, space-separated as the specification allows.
 */
export function signatureHeaders(scheme: SignatureScheme, input: SignatureInput): Record<string, string> {
  const { secrets, deliveryId, timestamp, body } = input;
  if (scheme === "standard-webhooks") {
    const active = secrets.previous === null ? [secrets.current] : [secrets.current, secrets.previous];
    return {
      [StandardWebhookHeaders.id]: deliveryId,
      [StandardWebhookHeaders.timestamp]: String(timestamp),
      [StandardWebhookHeaders.signature]: active
        .map((secret) => signStandardWebhook(secret, deliveryId, timestamp, body))
        .join(" "),
    };
  }
  return {
    "X-PT-Timestamp": String(timestamp),
    "X-PT-Signature": signWebhook(secrets.current, timestamp, body),
    // A rotation's overlap: the same timestamp and body signed with the replaced secret, so a receiver still holding
    // it verifies this attempt (docs/webhooks.md).
    ...(secrets.previous === null ? {} : { "X-PT-Signature-Previous": signWebhook(secrets.previous, timestamp, body) }),
  };
}
