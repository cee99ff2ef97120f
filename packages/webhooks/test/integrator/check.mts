// Typechecked in the integrator's project (moduleResolution node16, then bundler) against the tarballs' declarations.
import { createGatewayClient, requestError, type GatewayClient, verifyWebhook } from "@pt-gateway/client";
import {
  fastifyWebhooks,
  parseWebhookEvent,
  verifyStandardWebhook,
  webhookFetchHandler,
  webhookReceiver,
  type GatewayWebhookEvent,
  type VerifyResult,
} from "@pt-gateway/webhooks";

const client: GatewayClient = createGatewayClient({ baseUrl: "https://gateway.exemplo.com.br", apiKey: "pt_live_x" });

export async function send(to: string): Promise<string> {
  const { data, error, response } = await client.POST("/public/v1/messages", {
    body: { to, template: "pedido_confirmado", language: "pt_BR", variables: ["Maria"] },
  });
  if (error !== undefined) throw requestError(response, error);
  return data.data.message_id;
}

// The operations are typed, not `any`: an unknown path does not compile.
// @ts-expect-error no such operation
export const wrong = client.GET("/public/v1/no-such-operation");

export function summary(event: GatewayWebhookEvent): string {
  if (event.event === "message.status") return `${event.data.message_id}: ${event.data.status}`;
  if (event.event === "message.received") return `${event.data.type} de ${event.data.from ?? "?"}`;
  return event.event;
}

export const checks: VerifyResult[] = [
  verifyWebhook({ secret: "s", rawBody: "{}", timestamp: 1, signature: "sha256=00" }),
  verifyStandardWebhook({ secret: ["whsec_a", "whsec_b"], rawBody: "{}", id: "1", timestamp: 1, signature: "v1,x" }),
];
export const parsed: GatewayWebhookEvent = parseWebhookEvent("{}");
// The event union is typed, not `any`: an event the contract does not have does not compile.
// @ts-expect-error no such event
export const unknownEvent = parsed.event === "message.unknown";

const onEvent = async (event: GatewayWebhookEvent): Promise<void> => {
  await Promise.resolve(summary(event));
};
// Next.js: `export const POST = ...` in app/webhooks/route.ts; Hono: `app.post("/webhooks", (c) => POST(c.req.raw))`.
export const POST: (request: Request) => Promise<Response> = webhookFetchHandler({ secret: "whsec_a", onEvent });
export const express = webhookReceiver({ getSecret: () => ({ secret: ["new", "old"], scheme: "pt" }), onEvent });
export const fastify = fastifyWebhooks({ path: "/webhooks", secret: "s", onEvent });
