// The framework-neutral half of a webhook receiver: verify, parse, check the unsigned headers against the signed
// body, hand the event to `onEvent`, and say what to answer. The adapters (middleware.ts for Express and node:http,
// fetch.ts for fetch-style handlers, fastify.ts) only read the request and write the answer.
import type { IncomingMessage } from "node:http";
import { parseWebhookEvent, WebhookPayloadError, type GatewayWebhookEvent } from "./events.ts";
import { StandardWebhookHeaders, verifyStandardWebhook } from "./standard.ts";
import {
  describeVerifyFailure,
  verifyWebhook,
  WebhookHeaders,
  type SignatureScheme,
  type VerifyResult,
  type WebhookSecrets,
} from "./verify.ts";

export interface WebhookMeta {
  /** The signed body's `delivery_id`; repeats across retries of the same event. */
  deliveryId: string;
  /** `X-PT-Attempt` (1 for the first attempt); null when the header is absent or not a number. */
  attempt: number | null;
  /** Which integration the secret belongs to, when given: the dedup key is integration + delivery id. */
  integrationKey?: string;
}

export interface SecretLookup {
  /** One secret, or the new and the old one while you move to a rotated secret. */
  secret: WebhookSecrets;
  integrationKey?: string;
  /** This integration's scheme, when it differs from the options' `scheme`. */
  scheme?: SignatureScheme;
}

/**
 * A secret (or a list of secrets), the same with its integration key, or nothing (answered with 401
 * `missing_secret`).
 */
export type SecretSource = WebhookSecrets | SecretLookup | null | undefined;

interface CommonOptions {
  /**
   * Store the event durably here. The 2xx is sent only after this resolves; when it throws, the
   * gateway gets 503 and tries again later (spec 6.4).
   */
  onEvent: (event: GatewayWebhookEvent, meta: WebhookMeta) => Promise<void> | void;
  /** Default 300 s (spec 5.6). */
  toleranceSeconds?: number;
  /**
   * How the integration signs (panel, Integrations): `pt` (X-PT-Signature, the default) or `standard-webhooks`
   * (webhook-id, webhook-timestamp, webhook-signature; the secret is the panel's `whsec_...`).
   */
  scheme?: SignatureScheme;
  /** Largest body read; default 1 MiB. */
  limitBytes?: number;
  /** Told about failures that become a 503 (secret lookup or `onEvent` threw), for logging. */
  onError?: (error: unknown, stage: "secret" | "onEvent") => void;
}

/** The options of every adapter; `Req` is the request `getSecret` is given (node:http's, a fetch `Request`...). */
export type WebhookReceiverOptions<Req = IncomingMessage> = CommonOptions &
  (
    | {
        /** One secret, or several (e.g. the new and the old one while you move to a rotated secret). */
        secret: WebhookSecrets;
        integrationKey?: string;
        getSecret?: never;
      }
    | {
        getSecret: (req: Req) => SecretSource | Promise<SecretSource>;
        secret?: never;
        integrationKey?: never;
      }
  );

/** What an adapter answers: the status and the JSON body (`{success, error?}`), and extra headers. */
export interface WebhookAnswer {
  status: number;
  body: { success: true } | { success: false; error: { code: string; message: string } };
  headers: Record<string, string>;
}

/** What an adapter reads from its framework's request. */
export interface IncomingWebhook<Req> {
  request: Req;
  method: string;
  /** A header's value by its lower-case name, when present once. */
  header(name: string): string | undefined;
  /** The original bytes of the body; may throw `WebhookHttpFailure` (413, or a body parsed by someone else). */
  rawBody(limitBytes: number): Promise<Buffer>;
}

export const DEFAULT_LIMIT_BYTES = 1024 * 1024;

/** A refusal with its HTTP status, the code and the Portuguese sentence of the answer's envelope. */
export class WebhookHttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Verifies and handles one delivery; never throws: every outcome is an answer. */
export async function receiveWebhook<Req>(
  options: WebhookReceiverOptions<Req>,
  incoming: IncomingWebhook<Req>,
): Promise<WebhookAnswer> {
  try {
    if (incoming.method !== "POST") {
      return {
        ...failure(new WebhookHttpFailure(405, "method_not_allowed", "Use POST para entregar webhooks.")),
        headers: { Allow: "POST" },
      };
    }
    const header = (name: string): string | undefined => incoming.header(name.toLowerCase());
    const rawBody = await incoming.rawBody(options.limitBytes ?? DEFAULT_LIMIT_BYTES);
    const { secret, integrationKey, scheme: lookedUpScheme } = await resolveSecret(options, incoming.request);
    const scheme = lookedUpScheme ?? options.scheme ?? "pt";
    const tolerance = options.toleranceSeconds === undefined ? {} : { toleranceSeconds: options.toleranceSeconds };

    const verified: VerifyResult =
      scheme === "standard-webhooks"
        ? verifyStandardWebhook({
            secret,
            rawBody,
            id: header(StandardWebhookHeaders.id),
            timestamp: header(StandardWebhookHeaders.timestamp),
            signature: header(StandardWebhookHeaders.signature),
            ...tolerance,
          })
        : verifyWebhook({
            secret,
            rawBody,
            timestamp: header(WebhookHeaders.timestamp),
            signature: header(WebhookHeaders.signature),
            previousSignature: header(WebhookHeaders.previousSignature),
            ...tolerance,
          });
    if (!verified.ok)
      throw new WebhookHttpFailure(401, verified.reason, describeVerifyFailure(verified.reason, scheme));

    let event: GatewayWebhookEvent;
    try {
      event = parseWebhookEvent(rawBody);
    } catch (error) {
      if (error instanceof WebhookPayloadError) throw new WebhookHttpFailure(400, error.code, error.message);
      throw error;
    }
    // X-PT-Event is not signed: it must agree with the signed body, or someone altered the request.
    if (header(WebhookHeaders.event) !== event.event) {
      throw new WebhookHttpFailure(
        400,
        "event_mismatch",
        "O cabeçalho X-PT-Event não corresponde ao evento assinado no corpo.",
      );
    }
    const headerDeliveryId = header(WebhookHeaders.deliveryId);
    // Standard Webhooks: webhook-id is signed and is the delivery id, so it must be the body's too.
    const signedId = scheme === "standard-webhooks" ? header(StandardWebhookHeaders.id) : undefined;
    if (signedId !== undefined && signedId !== event.delivery_id)
      throw new WebhookHttpFailure(
        400,
        "delivery_id_mismatch",
        "O cabeçalho webhook-id não corresponde ao delivery_id assinado no corpo.",
      );
    if (headerDeliveryId !== undefined && headerDeliveryId !== event.delivery_id) {
      throw new WebhookHttpFailure(
        400,
        "delivery_id_mismatch",
        "O cabeçalho X-PT-Delivery-Id não corresponde ao delivery_id assinado no corpo.",
      );
    }
    const attemptHeader = header(WebhookHeaders.attempt);
    const meta: WebhookMeta = {
      deliveryId: event.delivery_id,
      attempt: attemptHeader !== undefined && /^\d{1,9}$/.test(attemptHeader) ? Number(attemptHeader) : null,
      ...(integrationKey === undefined ? {} : { integrationKey }),
    };

    try {
      await options.onEvent(event, meta);
    } catch (error) {
      options.onError?.(error, "onEvent");
      throw new WebhookHttpFailure(
        503,
        "storage_unavailable",
        "Não foi possível gravar o evento agora; envie novamente mais tarde.",
      );
    }
    return { status: 200, body: { success: true }, headers: {} };
  } catch (error) {
    if (error instanceof WebhookHttpFailure) return failure(error);
    return failure(new WebhookHttpFailure(500, "internal_error", "Erro inesperado ao receber o webhook."));
  }
}

function failure(error: WebhookHttpFailure): WebhookAnswer {
  return {
    status: error.status,
    body: { success: false, error: { code: error.code, message: error.message } },
    // After a 413 the rest of the body is unread; closing is cheaper than draining it.
    headers: error.status === 413 ? { Connection: "close" } : {},
  };
}

async function resolveSecret<Req>(
  options: WebhookReceiverOptions<Req>,
  req: Req,
): Promise<{ secret: WebhookSecrets | undefined; integrationKey?: string; scheme?: SignatureScheme }> {
  if (options.getSecret === undefined) {
    return {
      secret: options.secret,
      ...(options.integrationKey === undefined ? {} : { integrationKey: options.integrationKey }),
    };
  }
  let source: SecretSource;
  try {
    source = await options.getSecret(req);
  } catch (error) {
    options.onError?.(error, "secret");
    throw new WebhookHttpFailure(
      503,
      "secret_unavailable",
      "Não foi possível consultar o segredo de assinatura agora; envie novamente mais tarde.",
    );
  }
  if (source === null || source === undefined) return { secret: undefined };
  if (typeof source === "string" || isSecretList(source)) return { secret: source };
  return {
    secret: source.secret,
    ...(source.integrationKey === undefined ? {} : { integrationKey: source.integrationKey }),
    ...(source.scheme === undefined ? {} : { scheme: source.scheme }),
  };
}

function isSecretList(source: WebhookSecrets | SecretLookup): source is readonly string[] {
  return Array.isArray(source);
}

/** The answer's body as bytes, with its content headers. */
export function answerBytes(answer: WebhookAnswer): { text: string; headers: Record<string, string> } {
  const text = JSON.stringify(answer.body);
  return {
    text,
    headers: {
      ...answer.headers,
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": String(Buffer.byteLength(text)),
    },
  };
}
