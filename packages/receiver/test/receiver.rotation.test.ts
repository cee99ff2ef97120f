import { afterEach, describe, expect, it } from "@jest/globals";
import express from "express";
import type { Server } from "node:http";
import { signWebhook } from "@gw/signer";
import {
  HEADER_SIGNATURE_PREVIOUS,
  verifyWebhook,
  webhookReceiver,
  type WebhookReceiverOptions,
} from "../src/index.ts";
import { close, deliver, listen, receivedEvent } from "./support/deliver.ts";

// A secret rotation with an overlap (docs/webhooks.md): the gateway signs X-PT-Signature with the new secret and,
// until the overlap ends, X-PT-Signature-Previous with the replaced one.
const oldSecret = "whsec_old_0123456789";
const newSecret = "whsec_new_9876543210";
const timestamp = 1_763_812_800;
const body = JSON.stringify(receivedEvent());
const during = {
  rawBody: body,
  timestamp: String(timestamp),
  signature: signWebhook(newSecret, timestamp, body),
  previousSignature: signWebhook(oldSecret, timestamp, body),
  now: timestamp,
};

describe("verifyWebhook during a secret rotation", () => {
  it("accepts the request with the old secret only (through X-PT-Signature-Previous), the new one only, or both", () => {
    expect(HEADER_SIGNATURE_PREVIOUS).toBe("X-PT-Signature-Previous");
    expect(verifyWebhook({ ...during, secret: oldSecret })).toEqual({ ok: true });
    expect(verifyWebhook({ ...during, secret: newSecret })).toEqual({ ok: true });
    expect(verifyWebhook({ ...during, secret: [newSecret, oldSecret] })).toEqual({ ok: true });
    expect(verifyWebhook({ ...during, secret: [oldSecret, newSecret] })).toEqual({ ok: true });
  });

  it("still refuses a secret that signed neither header, and the old secret once the previous header is gone", () => {
    expect(verifyWebhook({ ...during, secret: "whsec_other" })).toEqual({ ok: false, reason: "signature_mismatch" });
    expect(verifyWebhook({ ...during, secret: ["whsec_other", ""] })).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
    const { previousSignature: _gone, ...after } = during;
    expect(verifyWebhook({ ...after, secret: oldSecret })).toEqual({ ok: false, reason: "signature_mismatch" });
    expect(verifyWebhook({ ...after, secret: [oldSecret, newSecret] })).toEqual({ ok: true });
  });

  it("needs a well-formed X-PT-Signature even when the previous one matches, and ignores a malformed previous one", () => {
    expect(verifyWebhook({ ...during, signature: undefined, secret: oldSecret })).toEqual({
      ok: false,
      reason: "bad_signature_format",
    });
    expect(
      verifyWebhook({ ...during, previousSignature: during.previousSignature.toUpperCase(), secret: newSecret }),
    ).toEqual({ ok: true });
    expect(
      verifyWebhook({ ...during, previousSignature: during.previousSignature.toUpperCase(), secret: oldSecret }),
    ).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  it("treats an empty list of secrets as no secret", () => {
    expect(verifyWebhook({ ...during, secret: [] })).toEqual({ ok: false, reason: "missing_secret" });
    expect(verifyWebhook({ ...during, secret: [""] })).toEqual({ ok: false, reason: "missing_secret" });
  });
});

describe("webhookReceiver during a secret rotation", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map(close));
  });

  async function start(options: WebhookReceiverOptions): Promise<string> {
    const app = express();
    app.post("/webhooks", webhookReceiver(options));
    const server = app.listen(0, "127.0.0.1");
    servers.push(server);
    return `${await listen(server)}/webhooks`;
  }

  it("a receiver still on the old secret accepts the gateway's overlap requests, and one given both accepts either", async () => {
    const body = JSON.stringify(receivedEvent("777"));
    const events: string[] = [];
    const onEvent = (_event: unknown, meta: { deliveryId: string }) => void events.push(meta.deliveryId);
    const stillOld = await start({ secret: oldSecret, onEvent });
    expect(await deliver(stillOld, { secret: newSecret, previousSecret: oldSecret, body })).toMatchObject({
      status: 200,
    });
    // Without the previous header (after the overlap) the old secret no longer verifies.
    expect(await deliver(stillOld, { secret: newSecret, body })).toMatchObject({
      status: 401,
      body: { error: { code: "signature_mismatch" } },
    });

    const both = await start({ getSecret: () => ({ secret: [newSecret, oldSecret], integrationKey: "crm" }), onEvent });
    expect((await deliver(both, { secret: newSecret, body })).status).toBe(200);
    expect((await deliver(both, { secret: oldSecret, body })).status).toBe(200);
    expect(events).toEqual(["777", "777", "777"]);
  });
});
