import { afterEach, describe, expect, it } from "@jest/globals";
import express from "express";
import type { Server } from "node:http";
import { setImmediate as tick } from "node:timers/promises";
import {
  webhookReceiver,
  type GatewayWebhookEvent,
  type WebhookMeta,
  type WebhookReceiverOptions,
} from "../src/index.ts";
import { close, deliver, failedStatusEvent, listen, nowSeconds, receivedEvent } from "./support/deliver.ts";

const secret = "whsec_middleware_secret";
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map(close));
});

async function start(options: WebhookReceiverOptions, rawFirst = false): Promise<string> {
  const app = express();
  // Some integrators mount express.raw() globally; the handler must use those bytes as they are.
  if (rawFirst) app.use(express.raw({ type: "*/*" }));
  app.post("/webhooks", webhookReceiver(options));
  app.post("/webhooks/:integration", webhookReceiver(options));
  const server = app.listen(0, "127.0.0.1");
  servers.push(server);
  return `${await listen(server)}/webhooks`;
}

function recorder() {
  const calls: Array<{ event: GatewayWebhookEvent; meta: WebhookMeta }> = [];
  return {
    calls,
    onEvent: async (event: GatewayWebhookEvent, meta: WebhookMeta) => {
      await tick(); // a real store is asynchronous: the answer must wait for it
      calls.push({ event, meta });
    },
  };
}

describe("webhookReceiver over a loopback HTTP server", () => {
  it("answers 200 only after onEvent stored the verified, typed event", async () => {
    for (const rawFirst of [false, true]) {
      const store = recorder();
      const url = await start({ secret, integrationKey: "crm", onEvent: store.onEvent }, rawFirst);
      const body = JSON.stringify(receivedEvent("555"));
      const response = await deliver(url, { secret, body, attempt: 3 });
      expect(response).toEqual({ status: 200, body: { success: true } });
      expect(store.calls).toEqual([
        { event: JSON.parse(body), meta: { deliveryId: "555", attempt: 3, integrationKey: "crm" } },
      ]);
    }
  });

  it("answers 401 with the reason when the signature or timestamp does not verify, without calling onEvent", async () => {
    const store = recorder();
    const url = await start({ secret, onEvent: store.onEvent });
    const body = JSON.stringify(failedStatusEvent());
    const wrongSecret = await deliver(url, { secret: "another-secret", body });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body).toEqual({
      success: false,
      error: { code: "signature_mismatch", message: expect.stringMatching(/assinatura não confere/) },
    });
    const stale = await deliver(url, { secret, body, timestamp: nowSeconds() - 3600 });
    expect(stale.status).toBe(401);
    expect(stale.body).toMatchObject({ error: { code: "stale_timestamp" } });
    const uppercase = await deliver(url, { secret, body, signature: `sha256=${"A".repeat(64)}` });
    expect(uppercase.body).toMatchObject({ error: { code: "bad_signature_format" } });
    expect(store.calls).toEqual([]);
  });

  it("answers 503 when onEvent fails after an await, so the gateway tries again", async () => {
    const errors: unknown[] = [];
    const url = await start({
      secret,
      onEvent: async () => {
        await tick();
        throw new Error("disco cheio");
      },
      onError: (error) => errors.push(error),
    });
    const response = await deliver(url, { secret, body: JSON.stringify(receivedEvent()) });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ success: false, error: { code: "storage_unavailable" } });
    expect(errors.map((error) => (error as Error).message)).toEqual(["disco cheio"]);
  });

  it("answers 400 when X-PT-Event or X-PT-Delivery-Id disagree with the signed body", async () => {
    const store = recorder();
    const url = await start({ secret, onEvent: store.onEvent });
    const body = JSON.stringify(receivedEvent("7"));
    expect((await deliver(url, { secret, body, event: "message.status" })).body).toMatchObject({
      error: { code: "event_mismatch" },
    });
    expect((await deliver(url, { secret, body, deliveryId: "8" })).body).toMatchObject({
      error: { code: "delivery_id_mismatch" },
    });
    const unknown = JSON.stringify({ ...receivedEvent(), event: "message.deleted" });
    const response = await deliver(url, { secret, body: unknown });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { code: "unknown_event" } });
    expect(store.calls).toEqual([]);
  });

  it("looks the secret up per integration with getSecret", async () => {
    const store = recorder();
    const secrets: Record<string, string> = { loja: "secret-loja", clinica: "secret-clinica" };
    const url = await start({
      getSecret: (req) => {
        const integration = req.url?.split("/").pop() ?? "";
        const found = secrets[integration];
        return found ? { secret: found, integrationKey: integration } : null;
      },
      onEvent: store.onEvent,
    });
    const body = JSON.stringify(receivedEvent("9"));
    expect((await deliver(`${url}/loja`, { secret: "secret-loja", body })).status).toBe(200);
    expect((await deliver(`${url}/clinica`, { secret: "secret-loja", body })).body).toMatchObject({
      error: { code: "signature_mismatch" },
    });
    expect((await deliver(`${url}/desconhecida`, { secret: "secret-loja", body })).body).toMatchObject({
      error: { code: "missing_secret" },
    });
    expect(store.calls.map((call) => call.meta)).toEqual([{ deliveryId: "9", attempt: 1, integrationKey: "loja" }]);
  });

  it("refuses a body larger than the limit with 413", async () => {
    const store = recorder();
    const url = await start({ secret, onEvent: store.onEvent, limitBytes: 64 });
    const response = await deliver(url, { secret, body: JSON.stringify(receivedEvent()) });
    expect(response.status).toBe(413);
    expect(store.calls).toEqual([]);
  });
});
