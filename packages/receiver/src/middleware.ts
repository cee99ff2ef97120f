// Request handler for Express (or plain node:http) that verifies, persists through `onEvent`, then acknowledges.
// Typed on node:http only, so the package needs no runtime dependency; Express accepts it as a RequestHandler.
import type { IncomingMessage, ServerResponse } from "node:http";
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

export type WebhookReceiverOptions = CommonOptions &
  (
    | {
        /** One secret, or several (e.g. the new and the old one while you move to a rotated secret). */
        secret: WebhookSecrets;
        integrationKey?: string;
        getSecret?: never;
      }
    | {
        getSecret: (req: IncomingMessage) => SecretSource | Promise<SecretSource>;
        secret?: never;
        integrationKey?: never;
      }
  );

export type WebhookRequest = IncomingMessage & { body?: unknown };
export type WebhookHandler = (req: WebhookRequest, res: ServerResponse) => Promise<void>;

const DEFAULT_LIMIT_BYTES = 1024 * 1024;

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * `app.post("/webhooks", webhookReceiver({ secret, onEvent }))`. Mount it BEFORE any `express.json()`
 * that would match this route: the signature covers the original bytes (spec 5.5).
 */
export function webhookReceiver(options: WebhookReceiverOptions): WebhookHandler {
  const limit = options.limitBytes ?? DEFAULT_LIMIT_BYTES;
  return async (req, res) => {
    try {
      if (req.method !== "POST") {
        res.setHeader("Allow", "POST");
        throw new HttpFailure(405, "method_not_allowed", "Use POST para entregar webhooks.");
      }
      const rawBody = await readRawBody(req, limit);
      const { secret, integrationKey, scheme: lookedUpScheme } = await resolveSecret(options, req);
      const scheme = lookedUpScheme ?? options.scheme ?? "pt";
      const tolerance = options.toleranceSeconds === undefined ? {} : { toleranceSeconds: options.toleranceSeconds };

      const verified: VerifyResult =
        scheme === "standard-webhooks"
          ? verifyStandardWebhook({
              secret,
              rawBody,
              id: header(req, StandardWebhookHeaders.id),
              timestamp: header(req, StandardWebhookHeaders.timestamp),
              signature: header(req, StandardWebhookHeaders.signature),
              ...tolerance,
            })
          : verifyWebhook({
              secret,
              rawBody,
              timestamp: header(req, WebhookHeaders.timestamp),
              signature: header(req, WebhookHeaders.signature),
              previousSignature: header(req, WebhookHeaders.previousSignature),
              ...tolerance,
            });
      if (!verified.ok) throw new HttpFailure(401, verified.reason, describeVerifyFailure(verified.reason, scheme));

      let event: GatewayWebhookEvent;
      try {
        event = parseWebhookEvent(rawBody);
      } catch (error) {
        if (error instanceof WebhookPayloadError) throw new HttpFailure(400, error.code, error.message);
        throw error;
      }
      // X-PT-Event is not signed: it must agree with the signed body, or someone altered the request.
      if (header(req, WebhookHeaders.event) !== event.event) {
        throw new HttpFailure(
          400,
          "event_mismatch",
          "O cabeçalho X-PT-Event não corresponde ao evento assinado no corpo.",
        );
      }
      const headerDeliveryId = header(req, WebhookHeaders.deliveryId);
      // Standard Webhooks: webhook-id is signed and is the delivery id, so it must be the body's too.
      const signedId = scheme === "standard-webhooks" ? header(req, StandardWebhookHeaders.id) : undefined;
      if (signedId !== undefined && signedId !== event.delivery_id)
        throw new HttpFailure(
          400,
          "delivery_id_mismatch",
          "O cabeçalho webhook-id não corresponde ao delivery_id assinado no corpo.",
        );
      if (headerDeliveryId !== undefined && headerDeliveryId !== event.delivery_id) {
        throw new HttpFailure(
          400,
          "delivery_id_mismatch",
          "O cabeçalho X-PT-Delivery-Id não corresponde ao delivery_id assinado no corpo.",
        );
      }
      const attemptHeader = header(req, WebhookHeaders.attempt);
      const meta: WebhookMeta = {
        deliveryId: event.delivery_id,
        attempt: attemptHeader !== undefined && /^\d{1,9}$/.test(attemptHeader) ? Number(attemptHeader) : null,
        ...(integrationKey === undefined ? {} : { integrationKey }),
      };

      try {
        await options.onEvent(event, meta);
      } catch (error) {
        options.onError?.(error, "onEvent");
        throw new HttpFailure(
          503,
          "storage_unavailable",
          "Não foi possível gravar o evento agora; envie novamente mais tarde.",
        );
      }
      send(res, 200, { success: true });
    } catch (error) {
      if (error instanceof HttpFailure) {
        send(res, error.status, { success: false, error: { code: error.code, message: error.message } });
      } else {
        send(res, 500, {
          success: false,
          error: { code: "internal_error", message: "Erro inesperado ao receber o webhook." },
        });
      }
    }
  };
}

async function resolveSecret(
  options: WebhookReceiverOptions,
  req: IncomingMessage,
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
    throw new HttpFailure(
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

/** The original bytes: from `express.raw()` when it ran before, otherwise read from the stream here. */
async function readRawBody(req: WebhookRequest, limit: number): Promise<Buffer> {
  if (Buffer.isBuffer(req.body)) return req.body;
  if (req.body !== undefined && typeof req.body !== "string") {
    throw new HttpFailure(
      500,
      "body_already_parsed",
      "O corpo já foi interpretado por outro middleware (por exemplo express.json()); monte o receptor antes dele para verificar os bytes originais.",
    );
  }
  if (typeof req.body === "string") return Buffer.from(req.body, "utf8");
  // Consumed by someone else without leaving req.body: nothing to verify (answered as missing_body).
  if (req.readableEnded) return Buffer.alloc(0);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      // Stop collecting but keep the socket: destroying the request would also lose our 413.
      req.off("data", onData);
      req.resume();
      reject(new HttpFailure(413, "body_too_large", `O corpo excede o limite de ${limit} bytes.`));
    };
    req.on("data", onData);
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", reject);
  });
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return typeof value === "string" ? value : undefined;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.statusCode = status;
  // After a 413 the rest of the body is unread; closing is cheaper than draining it.
  if (status === 413) res.setHeader("Connection", "close");
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}
