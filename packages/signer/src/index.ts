import { createHmac, timingSafeEqual } from "node:crypto";

/** Meta's `X-Hub-Signature-256`: HMAC-SHA256 of the raw body with the app secret, `sha256=` + hex. */
export function signMetaPayload(appSecret: string, rawBody: string | Buffer): string {
  return `sha256=${createHmac("sha256", appSecret).update(rawBody).digest("hex")}`;
}

/** Constant-time comparison of two signatures (or any two strings); different lengths never match. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  if (left.length !== right.length) {
    // Compare anyway so the time spent does not depend on where the lengths differ.
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

export function verifyMetaSignature(appSecret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (!header || !/^sha256=[0-9a-f]{64}$/i.test(header)) return false;
  return safeEqual(signMetaPayload(appSecret, rawBody), header.toLowerCase());
}

export {
  SECRET_KEY_ID,
  SecretUnreadableError,
  createSecretBox,
  sealedKeyId,
  type SecretBox,
  type SecretKey,
  type SecretPlace,
  type SecretUnreadableReason,
} from "./secret-box.ts";
export {
  DEFAULT_SIGNATURE_SCHEME,
  SIGNATURE_SCHEMES,
  StandardWebhookHeaders,
  displayedSigningSecret,
  isSignatureScheme,
  signStandardWebhook,
  signWebhook,
  signatureHeaders,
  standardWebhooksKey,
  standardWebhooksSecret,
  type SignatureInput,
  type SignatureScheme,
} from "./schemes.ts";
