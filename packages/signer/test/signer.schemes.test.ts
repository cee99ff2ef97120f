// Both signature schemes checked against code that is not ours: the official Standard Webhooks library from npm
// (`standardwebhooks`, its own HMAC in pure JS) and @noble/hashes' HMAC-SHA256 for the contract's X-PT-Signature.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "@jest/globals";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import {
  displayedSigningSecret,
  signatureHeaders,
  signWebhook,
  standardWebhooksKey,
  standardWebhooksSecret,
} from "../src/index.ts";

/** A secret as the gateway draws it (accounts.ts): `whsec_` + base64url of 32 random bytes. */
const drawSecret = () => `whsec_${randomBytes(32).toString("base64url")}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);
const BODY =
  '{"event":"message.status","occurred_at":"2026-11-30T12:00:00.000Z","delivery_id":"4242","data":{"ç":"ã"}}';

/** Spec 5.4 computed with @noble/hashes, over the secret's UTF-8 bytes as the contract's receivers do. */
function nobleXPt(secret: string, timestamp: number, body: string): string {
  return `sha256=${bytesToHex(hmac(sha256, utf8ToBytes(secret), utf8ToBytes(`${timestamp}.${body}`)))}`;
}

describe("the default scheme (pt)", () => {
  it("sends exactly the X-PT headers of the contract, signed as an independent HMAC computes them", () => {
    const secret = drawSecret();
    const timestamp = nowSeconds();
    const headers = signatureHeaders("pt", {
      secrets: { current: secret, previous: null },
      deliveryId: "4242",
      timestamp,
      body: BODY,
    });
    expect(Object.keys(headers)).toEqual(["X-PT-Timestamp", "X-PT-Signature"]);
    expect(headers["X-PT-Timestamp"]).toBe(String(timestamp));
    expect(headers["X-PT-Signature"]).toBe(nobleXPt(secret, timestamp, BODY));
    expect(headers["X-PT-Signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(signWebhook(secret, timestamp, BODY)).toBe(headers["X-PT-Signature"]);
  });

  it("during a rotation's overlap adds X-PT-Signature-Previous made with the replaced secret over the same timestamp", () => {
    const [current, previous] = [drawSecret(), drawSecret()];
    const timestamp = nowSeconds();
    const headers = signatureHeaders("pt", { secrets: { current, previous }, deliveryId: "7", timestamp, body: BODY });
    expect(Object.keys(headers)).toEqual(["X-PT-Timestamp", "X-PT-Signature", "X-PT-Signature-Previous"]);
    expect(headers["X-PT-Signature"]).toBe(nobleXPt(current, timestamp, BODY));
    expect(headers["X-PT-Signature-Previous"]).toBe(nobleXPt(previous, timestamp, BODY));
  });

  it("shows the secret exactly as stored", () => {
    const secret = drawSecret();
    expect(displayedSigningSecret("pt", secret)).toBe(secret);
  });
});

describe("the Standard Webhooks scheme", () => {
  it("is verified by the official library with the secret as the gateway shows it (whsec_ + base64)", () => {
    const secret = drawSecret();
    const shown = displayedSigningSecret("standard-webhooks", secret);
    expect(shown).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const headers = signatureHeaders("standard-webhooks", {
      secrets: { current: secret, previous: null },
      deliveryId: "4242",
      timestamp: nowSeconds(),
      body: BODY,
    });
    expect(Object.keys(headers)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
    expect(headers["webhook-id"]).toBe("4242");
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(shown).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    // The library's own signature of the same message is ours, byte for byte.
    expect(new Webhook(shown).sign("4242", new Date(Number(headers["webhook-timestamp"]) * 1000), BODY)).toBe(
      headers["webhook-signature"],
    );
  });

  it("keys the HMAC with the secret's decoded bytes, the ones the stored base64url form holds", () => {
    const raw = randomBytes(32);
    const secret = `whsec_${raw.toString("base64url")}`;
    expect(standardWebhooksKey(secret).equals(raw)).toBe(true);
    expect(standardWebhooksSecret(secret)).toBe(`whsec_${raw.toString("base64")}`);
    // Already in the libraries' form: unchanged.
    expect(standardWebhooksSecret(`whsec_${raw.toString("base64")}`)).toBe(`whsec_${raw.toString("base64")}`);
  });

  it("needs the displayed form: the stored base64url text is refused or verifies nothing in the library", () => {
    // Find a secret whose base64url text has a character standard base64 does not (almost every draw has one).
    // Only the text after `whsec_` counts (the prefix's own underscore would make every draw pass).
    const hasUrlOnlyCharacter = (candidate: string) => /[-_]/.test(candidate.slice("whsec_".length));
    let secret = drawSecret();
    while (!hasUrlOnlyCharacter(secret)) secret = drawSecret();
    const headers = signatureHeaders("standard-webhooks", {
      secrets: { current: secret, previous: null },
      deliveryId: "9",
      timestamp: nowSeconds(),
      body: BODY,
    });
    expect(() => new Webhook(secret).verify(BODY, headers)).toThrow();
    expect(() => new Webhook(standardWebhooksSecret(secret)).verify(BODY, headers)).not.toThrow();
  });

  it("during a rotation's overlap carries both signatures in webhook-signature; either secret alone verifies", () => {
    const [current, previous] = [drawSecret(), drawSecret()];
    const headers = signatureHeaders("standard-webhooks", {
      secrets: { current, previous },
      deliveryId: "77",
      timestamp: nowSeconds(),
      body: BODY,
    });
    const values = headers["webhook-signature"]!.split(" ");
    expect(values).toHaveLength(2);
    expect(values.every((value) => /^v1,[A-Za-z0-9+/]{43}=$/.test(value))).toBe(true);
    expect(() => new Webhook(standardWebhooksSecret(current)).verify(BODY, headers)).not.toThrow();
    expect(() => new Webhook(standardWebhooksSecret(previous)).verify(BODY, headers)).not.toThrow();
    expect(() => new Webhook(standardWebhooksSecret(drawSecret())).verify(BODY, headers)).toThrow(
      WebhookVerificationError,
    );
  });

  it("is refused by the library when the body, the id or the timestamp is not the signed one", () => {
    const secret = drawSecret();
    const wh = new Webhook(standardWebhooksSecret(secret));
    const timestamp = nowSeconds();
    const headers = signatureHeaders("standard-webhooks", {
      secrets: { current: secret, previous: null },
      deliveryId: "5",
      timestamp,
      body: BODY,
    });
    expect(() => wh.verify(BODY.replace("4242", "4243"), headers)).toThrow(WebhookVerificationError);
    expect(() => wh.verify(BODY, { ...headers, "webhook-id": "6" })).toThrow(WebhookVerificationError);
    expect(() => wh.verify(BODY, { ...headers, "webhook-timestamp": String(timestamp + 1) })).toThrow(
      WebhookVerificationError,
    );
    // An old attempt replayed later is outside the library's 5-minute tolerance.
    const stale = signatureHeaders("standard-webhooks", {
      secrets: { current: secret, previous: null },
      deliveryId: "5",
      timestamp: timestamp - 600,
      body: BODY,
    });
    expect(() => wh.verify(BODY, stale)).toThrow(/too old/);
  });

  it("gives a secret of another shape a key of its UTF-8 bytes, which the library verifies in its shown form", () => {
    const odd = "segredo-antigo-sem-prefixo";
    expect(standardWebhooksKey(odd).toString("utf8")).toBe(odd);
    const headers = signatureHeaders("standard-webhooks", {
      secrets: { current: odd, previous: null },
      deliveryId: "8",
      timestamp: nowSeconds(),
      body: BODY,
    });
    expect(() => new Webhook(standardWebhooksSecret(odd)).verify(BODY, headers)).not.toThrow();
  });
});
