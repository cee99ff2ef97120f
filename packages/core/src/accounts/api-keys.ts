import { createHash, randomBytes } from "node:crypto";
import type { Db, Prisma } from "@gw/db";
import { recordAuditAs, auditAction, recordAudit, type Actor } from "../audit/audit.ts";
import { scopesOfRow, storedScopes, type ApiKeyScope } from "./scopes.ts";

/** Fixed live-key prefix (spec 5.1); the rest is opaque. */
export const API_KEY_PREFIX = "pt_live_";
const KEY_BODY = /^[A-Za-z0-9_-]{43}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Longest key name kept (the panel's form refuses longer ones first). */
export const API_KEY_NAME_MAX_LENGTH = 80;

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/**
 * A new key; `key` is returned only here (shown once), the database keeps its hash and its prefix. `scopes`: what it
 * may do (scopes.ts); absent, or naming every scope, it holds every scope (stored as no list), as every key made
 * before scopes; an empty list is refused.
 */
export async function createApiKey(
  deps: { db: Db },
  input: {
    accountId: string;
    name?: string | null | undefined;
    scopes?: readonly ApiKeyScope[] | null | undefined;
    actor: Actor;
  },
): Promise<{ id: string; key: string; prefix: string; name: string | null; scopes: ApiKeyScope[] | null }> {
  const scopes = storedScopes(input.scopes);
  const key = API_KEY_PREFIX + randomBytes(32).toString("base64url");
  const prefix = key.slice(0, API_KEY_PREFIX.length + 6);
  const name = input.name?.trim().slice(0, API_KEY_NAME_MAX_LENGTH) || null;
  const row = await deps.db.$transaction(async (tx) => {
    const created = await tx.apiKey.create({
      data: { accountId: input.accountId, keyHash: hashApiKey(key), prefix, name, ...(scopes ? { scopes } : {}) },
    });
    await recordAuditAs(tx, input, "api_key.created", {
      target: created.id,
      details: { name, prefix, scopes: scopes ?? "all" },
    });
    return created;
  });
  return { id: row.id, key, prefix, name, scopes };
}

export interface ApiKeyView {
  id: string;
  prefix: string;
  name: string | null;
  /** What the key may do; null: every scope. */
  scopes: ApiKeyScope[] | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** `<created_at ISO>_<id>`: the last key of a page, the next page starts after it. */
const CURSOR = /^(\d{4}-\d{2}-\d{2}T[\d:.]+Z)_([0-9a-f-]{36})$/i;

/**
 * The account's keys, newest first, never their secret (only the hash is stored); keyset paging on
 * (created_at, id). `status` keeps only live or only revoked keys.
 */
export async function listApiKeys(
  deps: { db: Db },
  input: {
    accountId: string;
    status?: "active" | "revoked" | undefined;
    limit?: number | undefined;
    cursor?: string | undefined;
  },
): Promise<{ keys: ApiKeyView[]; next_cursor: string | null }> {
  const limit = Math.min(Math.max(input.limit ?? 50, 1), 200);
  const after = input.cursor ? CURSOR.exec(input.cursor) : null;
  const where: Prisma.ApiKeyWhereInput = {
    accountId: input.accountId,
    ...(input.status === "active"
      ? { revokedAt: null }
      : input.status === "revoked"
        ? { revokedAt: { not: null } }
        : {}),
    ...(after?.[1] && after[2]
      ? {
          OR: [
            { createdAt: { lt: new Date(after[1]) } },
            { createdAt: new Date(after[1]), id: { lt: after[2].toLowerCase() } },
          ],
        }
      : {}),
  };
  const rows = await deps.db.apiKey.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    // One more than asked tells whether another page exists.
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    keys: page.map((row) => ({
      id: row.id,
      prefix: row.prefix,
      name: row.name,
      scopes: scopesOfRow(row.scopes),
      created_at: row.createdAt.toISOString(),
      last_used_at: row.lastUsedAt?.toISOString() ?? null,
      revoked_at: row.revokedAt?.toISOString() ?? null,
    })),
    next_cursor: rows.length > limit && last ? `${last.createdAt.toISOString()}_${last.id}` : null,
  };
}

/**
 * Revokes a key; API pods forget it at commit (the `api_keys_notify_change` trigger, see directory.ts). With
 * `accountId` (the panel), another account's key is not found; the operator's CLI names the key alone. Null when
 * not found; revoking a revoked key keeps its first revocation time (`newly_revoked` false).
 */
export async function revokeApiKey(
  deps: { db: Db },
  input: { keyId: string; accountId?: string | undefined; actor: Actor },
): Promise<{ id: string; prefix: string; name: string | null; revoked_at: string; newly_revoked: boolean } | null> {
  if (!UUID.test(input.keyId)) return null;
  const where = { id: input.keyId, ...(input.accountId === undefined ? {} : { accountId: input.accountId }) };
  return deps.db.$transaction(async (tx) => {
    // Conditional update: two revocations at once record one time, and only one of them is "newly".
    const updated = await tx.apiKey.updateMany({
      where: { ...where, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    const row = await tx.apiKey.findFirst({
      where,
      select: { id: true, accountId: true, prefix: true, name: true, revokedAt: true },
    });
    if (!row?.revokedAt) return null;
    const newlyRevoked = updated.count === 1;
    if (newlyRevoked)
      await recordAudit(tx, {
        accountId: row.accountId,
        actor: input.actor,
        action: auditAction(input.actor, "api_key.revoked"),
        target: row.id,
        details: { name: row.name, prefix: row.prefix },
      });
    return {
      id: row.id,
      prefix: row.prefix,
      name: row.name,
      revoked_at: row.revokedAt.toISOString(),
      newly_revoked: newlyRevoked,
    };
  });
}

export interface AuthenticatedKey {
  keyId: string;
  accountId: string;
  /** What the key may do (scopes.ts); null: every scope. */
  scopes: ApiKeyScope[] | null;
}

/** The shape of a live key (prefix + 43 base64url characters): anything else is refused without a lookup. */
export function isWellFormedApiKey(presented: string): boolean {
  return presented.startsWith(API_KEY_PREFIX) && KEY_BODY.test(presented.slice(API_KEY_PREFIX.length));
}
