// The fetch-style and Fastify adapters answer as the node:http one does: 200 only after onEvent stored the verified
// event, 401 with the reason on a bad signature (both schemes), 413 past the limit, and the rest of a Fastify
// application keeps its own JSON parser.
import { afterEach, describe, expect, it } from "@jest/globals";
import { signatureHeaders, standardWebhooksSecret } from "@gw/signer";
import Fastify, { type FastifyInstance } from "fastify";
import {
  fastifyWebhooks,
  webhookFetchHandler,
  type GatewayWebhookEvent,
  type SignatureScheme,
  type WebhookMeta,
} from "../src/index.ts";
import { failedStatusEvent, nowSeconds, receivedEvent } from "./support/deliver.ts";

const stored = "whsec_adapters_secret_0123456789";

function signed(scheme: SignatureScheme, body: string, secret = stored): Record<string, string> {
  const parsed = JSON.parse(body) as { event: string; delivery_id: string };
  return {
    "content-type": "application/json",
    "x-pt-event": parsed.event,
    "x-pt-delivery-id": parsed.delivery_id,
    "x-pt-attempt": "2",
    ...signatureHeaders(scheme, {
      secrets: { current: secret, previous: null },
      deliveryId: parsed.delivery_id,
      timestamp: nowSeconds(),
      body,
    }),
  };
}

/** The secret as the integrator holds it under `scheme` (the panel shows `whsec_<base64>` for the standard). */
const secretFor = (scheme: SignatureScheme): string => (scheme === "pt" ? stored : standardWebhooksSecret(stored));

function recorder() {
  const calls: Array<{ event: GatewayWebhookEvent; meta: WebhookMeta }> = [];
  return {
    calls,
    onEvent: async (event: GatewayWebhookEvent, meta: WebhookMeta) => {
      await Promise.resolve();
      calls.push({ event, meta });
    },
  };
}

describe("webhookFetchHandler (Next.js route handlers, Hono)", () => {
  it.each(["pt", "standard-webhooks"] as const)(
    "stores the verified %s delivery before answering 200, and refuses a wrong secret with 401",
    async (scheme) => {
      const store = recorder();
      const handler = webhookFetchHandler({ secret: secretFor(scheme), scheme, onEvent: store.onEvent });
      const body = JSON.stringify(receivedEvent("701"));
      const ok = await handler(
        new Request("http://x/webhooks", { method: "POST", headers: signed(scheme, body), body }),
      );
      expect({ status: ok.status, body: await ok.json() }).toEqual({ status: 200, body: { success: true } });
      expect(store.calls).toEqual([{ event: JSON.parse(body), meta: { deliveryId: "701", attempt: 2 } }]);

      const forged = signed(scheme, body, "whsec_another_secret_000000000000");
      const refused = await handler(new Request("http://x/webhooks", { method: "POST", headers: forged, body }));
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ success: false, error: { code: "signature_mismatch" } });
      expect(store.calls).toHaveLength(1);
    },
  );

  it("answers 413 past limitBytes and 405 to a GET, without calling onEvent", async () => {
    const store = recorder();
    const handler = webhookFetchHandler({ secret: stored, limitBytes: 64, onEvent: store.onEvent });
    const body = JSON.stringify(failedStatusEvent());
    const tooLarge = await handler(
      new Request("http://x/webhooks", { method: "POST", headers: signed("pt", body), body }),
    );
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ error: { code: "body_too_large" } });
    const get = await handler(new Request("http://x/webhooks"));
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect(store.calls).toEqual([]);
  });

  it("answers 503 when onEvent throws, so the gateway retries", async () => {
    const handler = webhookFetchHandler({
      secret: stored,
      onEvent: () => {
        throw new Error("database down");
      },
    });
    const body = JSON.stringify(receivedEvent());
    const response = await handler(
      new Request("http://x/webhooks", { method: "POST", headers: signed("pt", body), body }),
    );
    expect(response.status).toBe(503);
  });
});

describe("fastifyWebhooks (a Fastify plugin)", () => {
  let app: FastifyInstance | null = null;
  afterEach(async () => {
    await app?.close();
    app = null;
  });

  it.each(["pt", "standard-webhooks"] as const)(
    "verifies the original bytes of a %s delivery while the application's other routes still parse JSON",
    async (scheme) => {
      const store = recorder();
      app = Fastify();
      await app.register(
        fastifyWebhooks({ path: "/hooks/gateway", secret: secretFor(scheme), scheme, onEvent: store.onEvent }),
      );
      app.post("/orders", (request, reply) => reply.send({ parsed: request.body }));
      const base = await app.listen({ port: 0, host: "127.0.0.1" });
      const post = async (path: string, headers: Record<string, string>, body: string) => {
        const response = await fetch(`${base}${path}`, { method: "POST", headers, body });
        return { status: response.status, body: await response.json() };
      };
      // Whitespace a re-serialization would drop: the signature covers these exact bytes.
      const body = JSON.stringify(receivedEvent("802"), null, 2);
      expect(await post("/hooks/gateway", signed(scheme, body), body)).toEqual({
        status: 200,
        body: { success: true },
      });
      expect(store.calls).toEqual([{ event: JSON.parse(body), meta: { deliveryId: "802", attempt: 2 } }]);

      const tampered = body.replace("Oi! Tudo bem?", "Oi! Tudo mal?");
      expect(await post("/hooks/gateway", signed(scheme, body), tampered)).toMatchObject({
        status: 401,
        body: { error: { code: "signature_mismatch" } },
      });
      const other = await post("/orders", { "content-type": "application/json" }, JSON.stringify({ id: 7 }));
      expect(other.body).toEqual({ parsed: { id: 7 } });
      expect(store.calls).toHaveLength(1);
    },
  );
});
