import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * Envelope encryption of the secrets the gateway stores (integrations' signing secrets): AES-256-GCM under a key of
 * the configured key ring (SECRETS_KEYS), a random 96-bit IV per value. A sealed value describes itself:
 *
 *   v1:<key id>:<iv, base64url>:<ciphertext + 16-byte tag, base64url>
 *
 * so each value names the key that opens it and keys can rotate row by row. The additional authenticated data binds
 * the value to its place (table, row id, column) and to its version and key id: a value copied to another row or
 * column, or edited in any byte, fails to open instead of yielding some other secret.
 */

/** One key of the ring: `id` is stored beside every value sealed with it. */
export interface SecretKey {
  id: string;
  /** 32 bytes (AES-256). */
  key: Buffer;
}

/** Where a sealed value is stored; part of its authenticated data. */
export interface SecretPlace {
  table: string;
  id: string;
  field: string;
}

export interface SecretBox {
  /** The key new values are sealed with (the ring's first). */
  readonly currentKeyId: string;
  seal(plaintext: string, place: SecretPlace): string;
  /** Throws SecretUnreadableError when the value is malformed, its key is not in the ring, or it fails to verify. */
  open(sealed: string, place: SecretPlace): string;
}

export type SecretUnreadableReason = "malformed" | "unknown_key" | "rejected";

const REASONS: Record<SecretUnreadableReason, string> = {
  malformed: "not a sealed value",
  unknown_key: "its key is not in SECRETS_KEYS",
  rejected: "it does not verify (altered, or moved from another row or column)",
};

/** A stored secret that cannot be opened. The message names the place and the key id, never a value. */
export class SecretUnreadableError extends Error {
  constructor(
    readonly reason: SecretUnreadableReason,
    readonly place: SecretPlace,
    readonly keyId: string | null,
  ) {
    super(
      `stored secret ${place.table}.${place.field} of ${place.id} cannot be decrypted` +
        `${keyId === null ? "" : ` (key id ${keyId})`}: ${REASONS[reason]}`,
    );
    this.name = "SecretUnreadableError";
  }
}

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Key ids appear inside sealed values (`:`-separated) and in logs. */
export const SECRET_KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const SEALED = /^v1:([A-Za-z0-9_-]{1,32}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]{22,})$/;

function additionalData(keyId: string, place: SecretPlace): Buffer {
  return Buffer.from(`${VERSION}:${keyId}:${place.table}:${place.id}:${place.field}`, "utf8");
}

/** The key id a sealed value names, or null when it is not one. */
export function sealedKeyId(sealed: string): string | null {
  return SEALED.exec(sealed)?.[1] ?? null;
}

/** A box over the key ring `keys`: the first seals, any of them opens what it sealed. */
export function createSecretBox(keys: readonly SecretKey[]): SecretBox {
  const current = keys[0];
  if (!current) throw new RangeError("the key ring needs at least one key");
  const ring = new Map<string, Buffer>();
  for (const { id, key } of keys) {
    if (!SECRET_KEY_ID.test(id)) throw new RangeError(`invalid key id ${JSON.stringify(id)}`);
    if (key.length !== 32) throw new RangeError(`key ${id} must be 32 bytes`);
    if (ring.has(id)) throw new RangeError(`key id ${id} appears twice`);
    ring.set(id, Buffer.from(key));
  }
  const currentKey = ring.get(current.id)!;
  return {
    currentKeyId: current.id,
    seal(plaintext, place) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", currentKey, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(additionalData(current.id, place));
      const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}:${current.id}:${iv.toString("base64url")}:${sealed.toString("base64url")}`;
    },
    open(sealed, place) {
      const match = SEALED.exec(sealed);
      const [, keyId, ivText, bodyText] = match ?? [];
      if (keyId === undefined || ivText === undefined || bodyText === undefined)
        throw new SecretUnreadableError("malformed", place, null);
      const key = ring.get(keyId);
      if (!key) throw new SecretUnreadableError("unknown_key", place, keyId);
      const iv = Buffer.from(ivText, "base64url");
      const body = Buffer.from(bodyText, "base64url");
      if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new SecretUnreadableError("malformed", place, keyId);
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(additionalData(keyId, place));
        decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
        return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString(
          "utf8",
        );
      } catch {
        throw new SecretUnreadableError("rejected", place, keyId);
      }
    },
  };
}
