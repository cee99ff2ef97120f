// Adapter for fetch-style handlers, `(request: Request) => Promise<Response>`: Next.js route handlers
// (`export const POST = webhookFetchHandler({...})`), Hono (`app.post("/webhooks", (c) => handler(c.req.raw))`),
// Bun, Deno, Cloudflare Workers. Uses the platform's Request and Response only.
import { answerBytes, receiveWebhook, WebhookHttpFailure, type WebhookReceiverOptions } from "./receive.ts";

export type WebhookFetchHandler = (request: Request) => Promise<Response>;

/** A handler that verifies, persists through `onEvent`, then answers (2xx only after `onEvent` resolved). */
export function webhookFetchHandler(options: WebhookReceiverOptions<Request>): WebhookFetchHandler {
  return async (request) => {
    const answer = await receiveWebhook(options, {
      request,
      method: request.method,
      header: (name) => request.headers.get(name) ?? undefined,
      rawBody: (limit) => readLimited(request, limit),
    });
    const { text, headers } = answerBytes(answer);
    return new Response(text, { status: answer.status, headers });
  };
}

/** The body's bytes, refused past `limit` without reading the rest. */
async function readLimited(request: Request, limit: number): Promise<Buffer> {
  const tooLarge = (): WebhookHttpFailure =>
    new WebhookHttpFailure(413, "body_too_large", `O corpo excede o limite de ${limit} bytes.`);
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  if (request.body === null) return Buffer.alloc(0);
  if (request.bodyUsed)
    throw new WebhookHttpFailure(
      500,
      "body_already_parsed",
      "O corpo já foi lido por outro código; entregue ao receptor a requisição original para verificar os bytes.",
    );
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}
