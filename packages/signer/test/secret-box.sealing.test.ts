import { randomBytes } from "node:crypto";
import { describe, expect, it } from "@jest/globals";
import { SecretUnreadableError, createSecretBox, sealedKeyId, type SecretPlace } from "../src/index.ts";

// The envelope encryption of stored secrets: AES-256-GCM, a random IV per value, the key id inside the value, and
// the value bound to its row and column. Whatever goes wrong, `open` throws: it never returns some other secret.
const place: SecretPlace = {
  table: "integrations",
  id: "0b5f4c0e-54a7-4a57-9b4e-2f2a4f6b9d01",
  field: "signing_secret",
};
const SECRET = "whsec_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG";
const k2026 = { id: "k2026", key: randomBytes(32) };
const k2027 = { id: "k2027", key: randomBytes(32) };

function unreadable(open: () => unknown): SecretUnreadableError {
  try {
    open();
  } catch (error) {
    if (error instanceof SecretUnreadableError) return error;
    throw error;
  }
  throw new Error("the value opened");
}

/** The sealed value with one byte of its base64url part `index` (2: IV, 3: ciphertext+tag) changed. */
function alter(sealed: string, index: 2 | 3, at = 5): string {
  const parts = sealed.split(":");
  const bytes = Buffer.from(parts[index]!, "base64url");
  bytes[at % bytes.length] = bytes[at % bytes.length]! ^ 0x01;
  parts[index] = bytes.toString("base64url");
  return parts.join(":");
}

describe("the secret box", () => {
  it("seals with the ring's first key, naming it, and opens what it sealed; the value does not contain the secret", () => {
    const box = createSecretBox([k2027, k2026]);
    const sealed = box.seal(SECRET, place);
    expect(sealed).toMatch(/^v1:k2027:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/);
    expect(sealedKeyId(sealed)).toBe("k2027");
    expect(sealed).not.toContain(SECRET);
    expect(sealed).not.toContain(Buffer.from(SECRET).toString("base64url").slice(0, 12));
    expect(box.open(sealed, place)).toBe(SECRET);
  });

  it("draws a fresh IV per value: the same secret sealed twice gives two values", () => {
    const box = createSecretBox([k2026]);
    const first = box.seal(SECRET, place);
    const second = box.seal(SECRET, place);
    expect(first).not.toBe(second);
    expect(first.split(":")[2]).not.toBe(second.split(":")[2]);
  });

  it("opens a value sealed with an older key still in the ring, and refuses it once that key is gone", () => {
    const sealedBefore = createSecretBox([k2026]).seal(SECRET, place);
    expect(createSecretBox([k2027, k2026]).open(sealedBefore, place)).toBe(SECRET);
    const error = unreadable(() => createSecretBox([k2027]).open(sealedBefore, place));
    expect(error).toMatchObject({ reason: "unknown_key", keyId: "k2026" });
    expect(error.message).toContain("k2026");
    expect(error.message).not.toContain(SECRET);
  });

  it("refuses any altered byte of the IV or of the ciphertext and tag", () => {
    const box = createSecretBox([k2026]);
    const sealed = box.seal(SECRET, place);
    const length = Buffer.from(sealed.split(":")[3]!, "base64url").length;
    for (const at of [0, 5, length - 17, length - 1])
      expect(unreadable(() => box.open(alter(sealed, 3, at), place)).reason).toBe("rejected");
    expect(unreadable(() => box.open(alter(sealed, 2), place)).reason).toBe("rejected");
  });

  it("refuses a value moved to another row or another column, or relabelled with another key id", () => {
    const box = createSecretBox([k2027, k2026]);
    const sealed = box.seal(SECRET, place);
    expect(unreadable(() => box.open(sealed, { ...place, id: "9c1e0f3a-0000-4000-8000-000000000000" })).reason).toBe(
      "rejected",
    );
    expect(unreadable(() => box.open(sealed, { ...place, field: "previous_signing_secret" })).reason).toBe("rejected");
    expect(unreadable(() => box.open(sealed.replace("v1:k2027:", "v1:k2026:"), place)).reason).toBe("rejected");
  });

  it("refuses what is not a sealed value (a clear secret, a truncated one)", () => {
    const box = createSecretBox([k2026]);
    const sealed = box.seal(SECRET, place);
    expect(unreadable(() => box.open(SECRET, place))).toMatchObject({ reason: "malformed", keyId: null });
    expect(unreadable(() => box.open(sealed.slice(0, sealed.lastIndexOf(":") + 10), place)).reason).toBe("malformed");
    expect(sealedKeyId(SECRET)).toBeNull();
  });

  it("refuses a ring without keys, with a key that is not 32 bytes, or with an id twice", () => {
    expect(() => createSecretBox([])).toThrow(RangeError);
    expect(() => createSecretBox([{ id: "k1", key: randomBytes(16) }])).toThrow(/32 bytes/);
    expect(() => createSecretBox([k2026, { ...k2027, id: "k2026" }])).toThrow(/twice/);
    expect(() => createSecretBox([{ id: "k:1", key: randomBytes(32) }])).toThrow(/key id/);
  });
});
