import { describe, expect, it } from "@jest/globals";
import { signWebhook } from "@gw/signer";
import { assertWebhook, verifyWebhook, WebhookVerificationError, type VerifyWebhookInput } from "../src/index.ts";
import { receivedEvent } from "./support/deliver.ts";

const secret = "whsec_test_0123456789abcdef";
const timestamp = 1_763_812_800; // fixed clock: every case passes `now` explicitly
const body = JSON.stringify(receivedEvent());
const signature = signWebhook(secret, timestamp, body);

function check(overrides: Partial<VerifyWebhookInput>) {
  return verifyWebhook({
    secret,
    rawBody: body,
    timestamp: String(timestamp),
    signature,
    now: timestamp,
    ...overrides,
  });
}

describe("verifyWebhook (spec 5.6)", () => {
  it("accepts a body signed by the gateway's own signer, as string or as raw bytes", () => {
    expect(check({})).toEqual({ ok: true });
    expect(check({ rawBody: Buffer.from(body, "utf8") })).toEqual({ ok: true });
    // Multi-byte UTF-8 text: the HMAC covers bytes, and both sides must agree on them.
    const accented = JSON.stringify({
      ...receivedEvent(),
      data: { ...receivedEvent().data, text: "Olá, ação às 9h ✓" },
    });
    expect(
      check({ rawBody: Buffer.from(accented), signature: signWebhook(secret, timestamp, Buffer.from(accented)) }),
    ).toEqual({ ok: true });
  });

  it("accepts a fresh signature against the real clock when `now` is omitted", () => {
    const current = Math.floor(Date.now() / 1000);
    const result = verifyWebhook({
      secret,
      rawBody: body,
      timestamp: String(current),
      signature: signWebhook(secret, current, body),
    });
    expect(result).toEqual({ ok: true });
  });

  it("rejects a missing secret or body", () => {
    expect(check({ secret: "" })).toEqual({ ok: false, reason: "missing_secret" });
    expect(check({ secret: undefined })).toEqual({ ok: false, reason: "missing_secret" });
    expect(check({ rawBody: "" })).toEqual({ ok: false, reason: "missing_body" });
    expect(check({ rawBody: Buffer.alloc(0) })).toEqual({ ok: false, reason: "missing_body" });
    expect(check({ rawBody: undefined })).toEqual({ ok: false, reason: "missing_body" });
  });

  it("rejects timestamps that are not 1 to 12 ASCII digits, a 13-digit value included", () => {
    for (const bad of [
      undefined,
      "",
      "1763812800000",
      "-1763812800",
      "1763812800.5",
      " 1763812800",
      "1763812800 ",
      "1e9",
      "١٧٦٣٨١٢٨٠٠",
    ]) {
      expect([bad, check({ timestamp: bad })]).toEqual([bad, { ok: false, reason: "bad_timestamp" }]);
    }
    // Twelve digits pass the format check and then fail only on the clock.
    expect(check({ timestamp: "176381280000" })).toEqual({ ok: false, reason: "stale_timestamp" });
    const twelve = 176_381_280_000;
    expect(check({ timestamp: String(twelve), now: twelve, signature: signWebhook(secret, twelve, body) })).toEqual({
      ok: true,
    });
  });

  it("rejects signatures outside `sha256=` + 64 lowercase hex characters, uppercase hex included", () => {
    const hex = signature.slice("sha256=".length);
    for (const bad of [
      undefined,
      "",
      hex,
      `sha256=${hex.toUpperCase()}`,
      `SHA256=${hex}`,
      `sha256=${hex.slice(1)}`,
      `sha256=${hex}0`,
      `sha1=${hex}`,
      `sha256=${hex.slice(0, 63)}g`,
      ` ${signature}`,
    ]) {
      expect([bad, check({ signature: bad })]).toEqual([bad, { ok: false, reason: "bad_signature_format" }]);
    }
  });

  it("accepts a skew of exactly 300 s and rejects 301 s in both directions", () => {
    expect(check({ now: timestamp + 300 })).toEqual({ ok: true });
    expect(check({ now: timestamp - 300 })).toEqual({ ok: true });
    expect(check({ now: timestamp + 301 })).toEqual({ ok: false, reason: "stale_timestamp" });
    expect(check({ now: timestamp - 301 })).toEqual({ ok: false, reason: "stale_timestamp" });
    expect(check({ now: timestamp + 11, toleranceSeconds: 10 })).toEqual({ ok: false, reason: "stale_timestamp" });
  });

  it("rejects a body altered by one byte, re-serialized JSON, another secret or another timestamp", () => {
    const bytes = Buffer.from(body);
    const index = bytes.indexOf("Oi!");
    bytes[index] = "o".charCodeAt(0);
    expect(check({ rawBody: bytes })).toEqual({ ok: false, reason: "signature_mismatch" });
    // Same JSON value, different spacing: parsing and re-serializing loses the signed bytes (spec 5.5).
    const respaced = JSON.stringify(JSON.parse(body), null, 2);
    expect(JSON.parse(respaced)).toEqual(JSON.parse(body));
    expect(check({ rawBody: respaced })).toEqual({ ok: false, reason: "signature_mismatch" });
    expect(check({ secret: `${secret}x` })).toEqual({ ok: false, reason: "signature_mismatch" });
    // The timestamp is part of the signed string: replaying a body with a new timestamp fails.
    expect(check({ timestamp: String(timestamp + 1), now: timestamp + 1 })).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });

  it("assertWebhook throws a WebhookVerificationError carrying the reason and a Portuguese message", () => {
    expect(() =>
      assertWebhook({ secret, rawBody: body, timestamp: String(timestamp), signature, now: timestamp }),
    ).not.toThrow();
    let caught: unknown;
    try {
      assertWebhook({ secret, rawBody: body, timestamp: String(timestamp), signature, now: timestamp + 301 });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(WebhookVerificationError);
    expect((caught as WebhookVerificationError).reason).toBe("stale_timestamp");
    expect((caught as WebhookVerificationError).message).toMatch(/fora da tolerância/);
  });
});
