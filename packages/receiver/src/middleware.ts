// Request handler for Express (or plain node:http) that verifies, persists through `onEvent`, then acknowledges.
// Typed on node:http only, so the package needs no runtime dependency; Express accepts it as a RequestHandler.
import type { IncomingMessage, ServerResponse } from "node:http";
import { answerBytes, receiveWebhook, WebhookHttpFailure, type WebhookReceiverOptions } from "./receive.ts";

export type { SecretLookup, SecretSource, WebhookMeta, WebhookReceiverOptions } from "./receive.ts";

export type WebhookRequest = IncomingMessage & { body?: unknown };
export type WebhookHandler = (req: WebhookRequest, res: ServerResponse) => Promise<void>;

/**
 * `app.post("/webhooks", webhookReceiver({ secret, onEvent }))`. Mount it BEFORE any `express.json()`
 * that would match this route: the signature covers the original bytes (spec 5.5).
 */
export function webhookReceiver(options: WebhookReceiverOptions<IncomingMessage>): WebhookHandler {
  return async (req, res) => {
    const answer = await receiveWebhook(options, {
      request: req,
      method: req.method ?? "",
      header: (name) => {
        const value = req.headers[name];
        return typeof value === "string" ? value : undefined;
      },
      rawBody: (limit) => readRawBody(req, limit),
    });
    if (res.headersSent) return;
    const { text, headers } = answerBytes(answer);
    res.statusCode = answer.status;
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.end(text);
  };
}

/** The original bytes: from `express.raw()` when it ran before, otherwise read from the stream here. */
async function readRawBody(req: WebhookRequest, limit: number): Promise<Buffer> {
  if (Buffer.isBuffer(req.body)) return req.body;
  if (req.body !== undefined && typeof req.body !== "string") {
    throw new WebhookHttpFailure(
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
      reject(new WebhookHttpFailure(413, "body_too_large", `O corpo excede o limite de ${limit} bytes.`));
    };
    req.on("data", onData);
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", reject);
  });
}
