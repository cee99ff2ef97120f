// Signature check of the Standard Webhooks scheme (https://www.standardwebhooks.com), for integrations that chose it
// in the panel. The official libraries (npm `standardwebhooks`, and their Python, Go, Java... siblings) verify the
// same requests; this is the same check with node:crypto only, returning the reasons `verifyWebhook` uses.
import { createHmac, timingSafeEqual } from "node:crypto";
import { DEFAULT_TOLERANCE_SECONDS, type VerifyResult, type WebhookSecrets } from "./verify.ts";

/** Header names of the Standard Webhooks scheme (Node lower-cases incoming names, as these already are). */
export const StandardWebhookHeaders = {
  id: "webhook-id",
  timestamp: "webhook-timestamp",
  signature: "webhook-signature",
} as const;

export interface VerifyStandardWebhookInput {
  /**
   * The integration's signing secret as the panel shows it for this scheme (`whsec_` + base64), or a list while you
   * move to a rotated one. The part after `whsec_` is base64 of the HMAC key, as the official libraries read it.
   */
  secret: WebhookSecrets | null | undefined;
  /** The request body exactly as received: never a re-serialized JSON object. */
  rawBody: Buffer | Uint8Array | string | null | undefined;
  /** `webhook-id`: the delivery id, the same on every attempt and resend (deduplicate on it). */
  id: string | null | undefined;
  /** `webhook-timestamp` (Unix seconds of this attempt). */
  timestamp: string | number | null | undefined;
  /** `webhook-signature`: one or more space-separated `v1,<base64>` (two during a secret rotation's overlap). */
  signature: string | null | undefined;
  /** Current time in Unix seconds; default `Date.now() / 1000`. */
  now?: number;
  /** Default 300 (the specification's recommendation too). */
  toleranceSeconds?: number;
}

const TIMESTAMP_PATTERN = /^\d{1,12}$/;
// Standard base64 of a 32-byte HMAC-SHA256: 43 characters and one `=`.
const V1_SIGNATURE = /^v1,([A-Za-z0-9+/]{43}=)$/;
const ID_PATTERN = /^[^\s.]{1,256}$/;

/** The HMAC key of a `whsec_<base64>` secret (the prefix is optional, as in the official libraries). */
function keyOf(secret: string): Buffer | null {
  const body = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return null;
  const key = Buffer.from(body, "base64");
  return key.length > 0 ? key : null;
}

/** Checks one request of the Standard Webhooks scheme; reasons as in `verifyWebhook`, plus `bad_webhook_id`. */
export function verifyStandardWebhook(input: VerifyStandardWebhookInput): VerifyResult {
  const keys = secretList(input.secret)
    .map(keyOf)
    .filter((key): key is Buffer => key !== null);
  if (keys.length === 0) return { ok: false, reason: "missing_secret" };
  const { rawBody, id } = input;
  if (rawBody === null || rawBody === undefined || rawBody.length === 0) return { ok: false, reason: "missing_body" };
  if (typeof id !== "string" || !ID_PATTERN.test(id)) return { ok: false, reason: "bad_webhook_id" };

  const timestamp = typeof input.timestamp === "number" ? String(input.timestamp) : input.timestamp;
  if (typeof timestamp !== "string" || !TIMESTAMP_PATTERN.test(timestamp))
    return { ok: false, reason: "bad_timestamp" };
  const received = (input.signature ?? "")
    .split(" ")
    .map((part) => V1_SIGNATURE.exec(part)?.[1])
    .filter((value): value is string => value !== undefined);
  if (received.length === 0) return { ok: false, reason: "bad_signature_format" };

  const now = input.now ?? Date.now() / 1000;
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(Math.abs(now - Number(timestamp)) <= tolerance)) return { ok: false, reason: "stale_timestamp" };

  let matched = false;
  for (const key of keys) {
    const hmac = createHmac("sha256", key);
    hmac.update(`${id}.${timestamp}.`);
    hmac.update(rawBody);
    const expected = Buffer.from(hmac.digest("base64"), "ascii");
    // Every pair is compared (no early exit); all are 44 ASCII characters (format checked above).
    for (const candidate of received) matched = timingSafeEqual(expected, Buffer.from(candidate, "ascii")) || matched;
  }
  return matched ? { ok: true } : { ok: false, reason: "signature_mismatch" };
}

function secretList(secret: WebhookSecrets | null | undefined): string[] {
  if (typeof secret === "string") return secret.length > 0 ? [secret] : [];
  if (!Array.isArray(secret)) return [];
  return (secret as readonly unknown[]).filter((item): item is string => typeof item === "string" && item.length > 0);
}
