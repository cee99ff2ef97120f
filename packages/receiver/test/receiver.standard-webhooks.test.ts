// The Standard Webhooks scheme on the receiving side: requests signed by the official library from npm
// (`standardwebhooks`, not our signer) are accepted by verifyStandardWebhook and the middleware exactly when the
// library's own verify accepts them.
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "@jest/globals";
import express from "express";
import type { Server } from "node:http";
import { Webhook } from "standardwebhooks";
import { signatureHeaders } from "@gw/signer";
import {
  StandardWebhookHeaders,
  describeVerifyFailure,
  verifyStandardWebhook,
  webhookReceiver,
  type GatewayWebhookEvent,
  type WebhookReceiverOptions,
} from "../src/index.ts";
import { close, listen, nowSeconds, receivedEvent } from "./support/deliver.ts";

const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;
const body = JSON.stringify(receivedEvent("555"));

/** Headers as the official library signs them (msg id = the delivery id, as the gateway sends it). */
function librarySigned(secret: string, id = "555", timestamp = nowSeconds()) {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": new Webhook(secret).sign(id, new Date(timestamp * 1000), body),
  };
}

function check(secret: string | string[], headers: Record<string, string>, now?: number) {
  return verifyStandardWebhook({
    secret,
    rawBody: body,
    id: headers["webhook-id"],
    timestamp: headers["webhook-timestamp"],
    signature: headers["webhook-signature"],
    ...(now === undefined ? {} : { now }),
  });
}

describe("verifyStandardWebhook", () => {
  it("accepts what the official library signs, and refuses another secret, body, id or timestamp", () => {
    const secret = newSecret();
    const headers = librarySigned(secret);
    expect(StandardWebhookHeaders).toEqual({
      id: "webhook-id",
      timestamp: "webhook-timestamp",
      signature: "webhook-signature",
    });
    expect(check(secret, headers)).toEqual({ ok: true });
    // The prefix is optional, as in the library.
    expect(check(secret.slice("whsec_".length), headers)).toEqual({ ok: true });
    expect(check(newSecret(), headers)).toEqual({ ok: false, reason: "signature_mismatch" });
    expect(check(secret, { ...headers, "webhook-id": "556" })).toEqual({ ok: false, reason: "signature_mismatch" });
    expect(
      check(secret, { ...headers, "webhook-timestamp": String(Number(headers["webhook-timestamp"]) + 1) }),
    ).toEqual({ ok: false, reason: "signature_mismatch" });
    expect(
      verifyStandardWebhook({
        secret,
        rawBody: body.replace("555", "556"),
        id: headers["webhook-id"],
        timestamp: headers["webhook-timestamp"],
        signature: headers["webhook-signature"],
      }),
    ).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  it("agrees with the library on the gateway's own headers during a rotation: either secret verifies", () => {
    const [current, previous] = [`whsec_${randomBytes(32).toString("base64url")}`, newSecret()];
    const headers = signatureHeaders("standard-webhooks", {
      secrets: { current, previous },
      deliveryId: "555",
      timestamp: nowSeconds(),
      body,
    });
    const shownCurrent = `whsec_${Buffer.from(current.slice(6), "base64url").toString("base64")}`;
    for (const secret of [shownCurrent, previous]) {
      expect(check(secret, headers)).toEqual({ ok: true });
      expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
    }
    expect(check([newSecret(), previous], headers)).toEqual({ ok: true });
    expect(check(newSecret(), headers)).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  it("names what is wrong with a malformed request, as the library refuses it too", () => {
    const secret = newSecret();
    const headers = librarySigned(secret);
    expect(check("", headers)).toEqual({ ok: false, reason: "missing_secret" });
    expect(check("whsec_não-é-base64!", headers)).toEqual({ ok: false, reason: "missing_secret" });
    expect(check(secret, { ...headers, "webhook-id": "" })).toEqual({ ok: false, reason: "bad_webhook_id" });
    expect(check(secret, { ...headers, "webhook-timestamp": "ontem" })).toEqual({
      ok: false,
      reason: "bad_timestamp",
    });
    expect(check(secret, { ...headers, "webhook-signature": `v2,${headers["webhook-signature"].slice(3)}` })).toEqual({
      ok: false,
      reason: "bad_signature_format",
    });
    const old = librarySigned(secret, "555", nowSeconds() - 301);
    expect(check(secret, old)).toEqual({ ok: false, reason: "stale_timestamp" });
    expect(() => new Webhook(secret).verify(body, old)).toThrow(/too old/);
    expect(describeVerifyFailure("bad_signature_format", "standard-webhooks")).toMatch(/webhook-signature/);
    expect(describeVerifyFailure("bad_signature_format")).toMatch(/X-PT-Signature/);
  });
});

describe("webhookReceiver with the Standard Webhooks scheme", () => {
  let server: Server | undefined;
  afterEach(async () => {
    if (server) await close(server);
    server = undefined;
  });

  async function start(options: Partial<WebhookReceiverOptions> & { secret?: string }) {
    const received: GatewayWebhookEvent[] = [];
    const app = express();
    app.post(
      "/webhooks",
      webhookReceiver({
        onEvent: (event) => void received.push(event),
        ...options,
      } as WebhookReceiverOptions),
    );
    server = app.listen(0, "127.0.0.1");
    return { url: `${await listen(server)}/webhooks`, received };
  }

  async function post(url: string, headers: Record<string, string>, payload = body) {
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-PT-Event": "message.received", ...headers },
      body: payload,
    });
    return { status: response.status, body: (await response.json()) as { error?: { code: string } } };
  }

  it("stores a request the official library signed and refuses one signed with another secret", async () => {
    const secret = newSecret();
    const { url, received } = await start({ secret, scheme: "standard-webhooks" });
    expect((await post(url, librarySigned(secret))).status).toBe(200);
    expect(received.map((event) => event.delivery_id)).toEqual(["555"]);
    const refused = await post(url, librarySigned(newSecret()));
    expect(refused).toMatchObject({ status: 401, body: { error: { code: "signature_mismatch" } } });
    expect(received).toHaveLength(1);
  });

  it("refuses a webhook-id that is not the signed body's delivery_id", async () => {
    const secret = newSecret();
    const { url, received } = await start({ secret, scheme: "standard-webhooks" });
    const response = await post(url, librarySigned(secret, "999"));
    expect(response).toMatchObject({ status: 400, body: { error: { code: "delivery_id_mismatch" } } });
    expect(received).toHaveLength(0);
  });

  it("takes the scheme per integration from getSecret, and keeps X-PT-Signature the default", async () => {
    const secret = newSecret();
    const { url } = await start({
      getSecret: (req) =>
        req.headers["x-integracao"] === "nova" ? { secret, scheme: "standard-webhooks" } : { secret },
    });
    expect((await post(url, { ...librarySigned(secret), "X-Integracao": "nova" })).status).toBe(200);
    // The same request to an integration left on the default scheme has no X-PT-Timestamp to verify.
    expect(await post(url, librarySigned(secret))).toMatchObject({
      status: 401,
      body: { error: { code: "bad_timestamp" } },
    });
  });
});
