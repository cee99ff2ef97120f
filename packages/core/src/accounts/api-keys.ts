import { createHash, randomBytes } from "node:crypto";
import type { Db } from "@gw/db";

/** Fixed live-key prefix (spec 5.1); the rest is opaque. */
export const API_KEY_PREFIX = "pt_live_";
const KEY_BODY = /^[A-Za-z0-9_-]{43}$/;

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export async function createApiKey(
  deps: { db: Db },
  input: { accountId: string },
): Promise<{ id: string; key: string; prefix: string }> {
  const key = API_KEY_PREFIX + randomBytes(32).toString("base64url");
  const prefix = key.slice(0, API_KEY_PREFIX.length + 6);
  const row = await deps.db.apiKey.create({ data: { accountId: input.accountId, keyHash: hashApiKey(key), prefix } });
  return { id: row.id, key, prefix };
}

export async function revokeApiKey(
  deps: { db: Db },
  input: { keyId: string },
): Promise<{ id: string; revoked_at: string } | null> {
  const { db } = deps;
  const id = input.keyId;
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

/** The shape of a live key (prefix + 43 base64url characters): anything else is refused without a lookup. */
export function isWellFormedApiKey(presented: string): boolean {
  return presented.startsWith(API_KEY_PREFIX) && KEY_BODY.test(presented.slice(API_KEY_PREFIX.length));
}
