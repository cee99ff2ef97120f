// Adapter for Fastify: a plugin that registers, in its own encapsulated scope, a content-type parser keeping the
// body's original bytes (the signature covers them) and the POST route. Typed structurally: no dependency on Fastify.
//   app.register(fastifyWebhooks({ path: "/webhooks", secret, onEvent }));
import { answerBytes, receiveWebhook, type WebhookReceiverOptions } from "./receive.ts";

/** What the plugin reads of Fastify's request. */
export interface FastifyWebhookRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
}

/** What the plugin uses of Fastify's reply. */
export interface FastifyWebhookReply {
  code(statusCode: number): FastifyWebhookReply;
  headers(values: Record<string, string>): FastifyWebhookReply;
  send(payload?: unknown): FastifyWebhookReply;
}

/** What the plugin uses of the Fastify instance it is registered on. */
export interface FastifyWebhookScope {
  removeAllContentTypeParsers(): unknown;
  addContentTypeParser(
    contentType: string,
    options: { parseAs: "buffer"; bodyLimit?: number },
    parser: (request: unknown, body: Buffer, done: (error: Error | null, body?: unknown) => void) => void,
  ): unknown;
  post(
    path: string,
    handler: (request: FastifyWebhookRequest, reply: FastifyWebhookReply) => Promise<unknown>,
  ): unknown;
}

export type FastifyWebhooksOptions = WebhookReceiverOptions<FastifyWebhookRequest> & {
  /** The route's path; default `/webhooks`. */
  path?: string;
};

/** A Fastify plugin (`app.register(...)`) receiving the gateway's webhooks at `options.path`. */
export function fastifyWebhooks(options: FastifyWebhooksOptions): (scope: FastifyWebhookScope) => Promise<void> {
  const limit = options.limitBytes ?? 1024 * 1024;
  return (scope) => {
    // Inside this plugin's scope only: the rest of the application keeps its own JSON parser.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: limit }, (_request, body, done) => {
      done(null, body);
    });
    scope.post(options.path ?? "/webhooks", async (request, reply) => {
      const answer = await receiveWebhook(options, {
        request,
        method: request.method,
        header: (name) => {
          const value = request.headers[name];
          return typeof value === "string" ? value : undefined;
        },
        rawBody: () => Promise.resolve(Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)),
      });
      const { text, headers } = answerBytes(answer);
      return reply.code(answer.status).headers(headers).send(text);
    });
    return Promise.resolve();
  };
}
