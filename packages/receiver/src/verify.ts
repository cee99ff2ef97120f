// Signature check of spec 5.6. node:crypto only, so integrators can copy or publish this package as is.
import { createHmac, timingSafeEqual } from "node:crypto";

/** Header names of spec 6.1. Node lower-cases incoming names; read them with `.toLowerCase()`. */
export const WebhookHeaders = {
  timestamp: "X-PT-Timestamp",
  signature: "X-PT-Signature",
  deliveryId: "X-PT-Delivery-Id",
  attempt: "X-PT-Attempt",
  event: "X-PT-Event",
  /** During a secret rotation's overlap: the same signature made with the replaced secret. */
  previousSignature: "X-PT-Signature-Previous",
} as const;

export const HEADER_TIMESTAMP = WebhookHeaders.timestamp;
export const HEADER_SIGNATURE = WebhookHeaders.signature;
export const HEADER_DELIVERY_ID = WebhookHeaders.deliveryId;
export const HEADER_ATTEMPT = WebhookHeaders.attempt;
export const HEADER_EVENT = WebhookHeaders.event;
export const HEADER_SIGNATURE_PREVIOUS = WebhookHeaders.previousSignature;

/** Recommended tolerance between the receiver's clock and `X-PT-Timestamp` (spec 5.6, 8). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type VerifyFailureReason =
  | "missing_secret"
  | "missing_body"
  | "bad_timestamp"
  | "bad_signature_format"
  | "stale_timestamp"
  | "signature_mismatch"
  /** Standard Webhooks scheme only: `webhook-id` absent or malformed. */
  | "bad_webhook_id";

/** How the integration signs its webhooks (panel, Integrations): the contract's X-PT-Signature or Standard Webhooks. */
export type SignatureScheme = "pt" | "standard-webhooks";

export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailureReason };

/** One signing secret, or several while you move to a rotated one (new and old, in any order). */
export type WebhookSecrets = string | readonly string[];

export interface VerifyWebhookInput {
  /**
   * The integration's signing secret (panel, Integrations), or a list of secrets: a request verifies when any of
   * them signed it. Empty strings in a list are ignored.
   */
  secret: WebhookSecrets | null | undefined;
  /** The request body exactly as received: never a re-serialized JSON object. */
  rawBody: Buffer | Uint8Array | string | null | undefined;
  /** Value of `X-PT-Timestamp`. */
  timestamp: string | number | null | undefined;
  /** Value of `X-PT-Signature`. */
  signature: string | null | undefined;
  /**
   * Value of `X-PT-Signature-Previous`, sent only during a secret rotation's overlap: the same timestamp and body
   * signed with the replaced secret. A receiver still configured with that secret verifies through it. Ignored
   * when absent or malformed (X-PT-Signature alone decides then).
   */
  previousSignature?: string | null | undefined;
  /** Current time in Unix seconds; default `Date.now() / 1000`. */
  now?: number;
  /** Default 300. */
  toleranceSeconds?: number;
}

const TIMESTAMP_PATTERN = /^\d{1,12}$/;
// Lowercase only: the sender always emits lowercase hex (spec 5.4), anything else is not ours.
const SIGNATURE_PATTERN = /^sha256=[0-9a-f]{64}$/;

/** Checks one webhook request as spec 5.6 recommends; the order of the checks is the order of the reasons. */
export function verifyWebhook(input: VerifyWebhookInput): VerifyResult {
  const { rawBody, signature } = input;
  const secrets = secretList(input.secret);
  if (secrets.length === 0) return fail("missing_secret");
  if (rawBody === null || rawBody === undefined || rawBody.length === 0) return fail("missing_body");

  const timestamp = typeof input.timestamp === "number" ? String(input.timestamp) : input.timestamp;
  if (typeof timestamp !== "string" || !TIMESTAMP_PATTERN.test(timestamp)) return fail("bad_timestamp");
  if (typeof signature !== "string" || !SIGNATURE_PATTERN.test(signature)) return fail("bad_signature_format");

  const now = input.now ?? Date.now() / 1000;
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(Math.abs(now - Number(timestamp)) <= tolerance)) return fail("stale_timestamp");

  const received = [signature];
  const previous = input.previousSignature;
  if (typeof previous === "string" && SIGNATURE_PATTERN.test(previous)) received.push(previous);
  let matched = false;
  for (const secret of secrets) {
    const hmac = createHmac("sha256", secret);
    // The signed string is the header value as received (not a re-formatted number) + "." + the body bytes.
    hmac.update(`${timestamp}.`);
    hmac.update(rawBody);
    const expected = Buffer.from(hmac.digest("hex"), "ascii");
    // Every pair is compared (no early exit); all are 64 ASCII characters (format checked above).
    for (const candidate of received)
      matched = timingSafeEqual(expected, Buffer.from(candidate.slice("sha256=".length), "ascii")) || matched;
  }
  return matched ? { ok: true } : fail("signature_mismatch");
}

function secretList(secret: WebhookSecrets | null | undefined): string[] {
  if (typeof secret === "string") return secret.length > 0 ? [secret] : [];
  if (!Array.isArray(secret)) return [];
  return (secret as readonly unknown[]).filter((item): item is string => typeof item === "string" && item.length > 0);
}

function fail(reason: VerifyFailureReason): VerifyResult {
  return { ok: false, reason };
}

const REASON_MESSAGES: Record<VerifyFailureReason, string> = {
  missing_secret: "O segredo de assinatura do webhook não está configurado.",
  missing_body: "O corpo da requisição está vazio ou não foi lido como bytes brutos.",
  bad_timestamp: "O cabeçalho X-PT-Timestamp está ausente ou não é um horário Unix em segundos (1 a 12 dígitos).",
  bad_signature_format:
    "O cabeçalho X-PT-Signature está ausente ou não segue o formato sha256= seguido de 64 caracteres hexadecimais minúsculos.",
  stale_timestamp: "O horário da assinatura está fora da tolerância permitida; confira o relógio deste servidor.",
  signature_mismatch: "A assinatura não confere com o corpo recebido e o segredo configurado.",
  bad_webhook_id: "O cabeçalho webhook-id está ausente ou malformado.",
};

/** Where the Standard Webhooks scheme's headers change the sentence. */
const STANDARD_REASON_MESSAGES: Partial<Record<VerifyFailureReason, string>> = {
  bad_timestamp: "O cabeçalho webhook-timestamp está ausente ou não é um horário Unix em segundos (1 a 12 dígitos).",
  bad_signature_format:
    "O cabeçalho webhook-signature está ausente ou não traz nenhuma assinatura v1, seguida de base64 de 32 bytes.",
  missing_secret: "O segredo de assinatura do webhook (whsec_ seguido de base64) não está configurado ou é inválido.",
};

/** Portuguese sentence explaining a rejection, for logs and for the 401 body. */
export function describeVerifyFailure(reason: VerifyFailureReason, scheme: SignatureScheme = "pt"): string {
  return (scheme === "standard-webhooks" ? STANDARD_REASON_MESSAGES[reason] : undefined) ?? REASON_MESSAGES[reason];
}

export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(readonly reason: VerifyFailureReason) {
    super(describeVerifyFailure(reason));
  }
}

/** Same checks as `verifyWebhook`, throwing `WebhookVerificationError` instead of returning a result. */
export function assertWebhook(input: VerifyWebhookInput): void {
  const result = verifyWebhook(input);
  if (!result.ok) throw new WebhookVerificationError(result.reason);
}
