import { createHash, randomBytes } from "node:crypto";
import type { Db } from "@gw/db";

/** Fixed live-key prefix (spec 5.1); the rest is opaque. */
export const API_KEY_PREFIX = "pt_live_";
const KEY_BODY = /^[A-Za-z0-9_-]{43}$/;

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export async function createApiKey(db: Db, accountId: string): Promise<{ id: string; key: string; prefix: string }> {
  const key = API_KEY_PREFIX + randomBytes(32).toString("base64url");
  const prefix = key.slice(0, API_KEY_PREFIX.length + 6);
  const row = await db.apiKey.create({ data: { accountId, keyHash: hashApiKey(key), prefix } });
  return { id: row.id, key, prefix };
}

export async function revokeApiKey(db: Db, id: string): Promise<{ id: string; revoked_at: string } | null> {
  const row = await db.apiKey.findUnique({ where: { id } });
  if (!row) return null;
  const revokedAt = row.revokedAt ?? new Date();
  if (!row.revokedAt) await db.apiKey.update({ where: { id }, data: { revokedAt } });
  return { id, revoked_at: revokedAt.toISOString() };
}

export interface AuthenticatedKey {
  keyId: string;
  accountId: string;
}

// last_used_at is written at most once a minute per key, so authentication is not a write per request.
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolve a bearer key. The lookup is by SHA-256 hash through a unique index, so no comparison ever runs
 * on the secret itself and timing does not reveal how much of a guessed key was right.
 */
export async function authenticateApiKey(db: Db, presented: string): Promise<AuthenticatedKey | null> {
  if (!presented.startsWith(API_KEY_PREFIX) || !KEY_BODY.test(presented.slice(API_KEY_PREFIX.length))) return null;
  const row = await db.apiKey.findUnique({
    where: { keyHash: hashApiKey(presented) },
    select: { id: true, accountId: true, revokedAt: true, lastUsedAt: true },
  });
  if (!row || row.revokedAt) return null;
  const now = Date.now();
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    // Fire and forget: a failed bookkeeping write must not fail the request.
    db.apiKey.update({ where: { id: row.id }, data: { lastUsedAt: new Date(now) } }).catch(() => undefined);
  }
  return { keyId: row.id, accountId: row.accountId };
}
