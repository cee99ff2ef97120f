import type { Db, DbTx, Prisma, Sql } from "@gw/db";

/** The door an action came through: the public API, the panel, the operator's CLI, or the gateway itself. */
export type AuditOrigin = "api" | "panel" | "cli" | "system";

/**
 * Who acts, as every changing service takes it (ARCHITECTURE.md, "The audit rule"). `id`: `api_key:<id>`,
 * `panel:<email>`, `cli:<os user>`, `campaign:<id>`, `user:<id>`.
 */
export interface Actor {
  id: string;
  origin: AuditOrigin;
  /** The request that carried the action, when there was one. */
  requestId?: string | null | undefined;
}

/** `<origin>.<name>`: how an action is named in the audit trail (`panel.integration.saved`, `cli.api_key.created`). */
export function auditAction(actor: Actor, name: string): string {
  return `${actor.origin}.${name}`;
}

export interface AuditEntry {
  accountId: string | null;
  actor: Actor;
  /** The whole action name, usually `auditAction(actor, ...)`; the contract fixes a few (spec 3.2, 4.7). */
  action: string;
  target?: string | null;
  details?: Prisma.InputJsonObject;
}

/** A Prisma client or transaction, or a `pg` pool or client (the hot paths' hand-written SQL). */
export type AuditExecutor = Db | DbTx | Sql;

/**
 * The audit row's columns, in the order of recordAudit's values. A hot path that writes its entry inside a larger
 * statement (the accepted send's single commit, messages/accepted.ts) inserts these same columns.
 */
export const AUDIT_INSERT_COLUMNS = `INSERT INTO audit_entries (account_id, actor, action, target, request_id, details)`;

const INSERT_AUDIT = `${AUDIT_INSERT_COLUMNS}
  VALUES ($1::uuid, $2, $3, $4, $5, $6::jsonb)`;

/**
 * The one way an audit entry is written. Services call it with their own transaction (Prisma's or a `pg` client
 * inside `inTransaction`), so the entry commits with the change it records, or not at all.
 */
export async function recordAudit(executor: AuditExecutor, entry: AuditEntry): Promise<void> {
  const requestId = entry.actor.requestId ?? null;
  if ("auditEntry" in executor) {
    await executor.auditEntry.create({
      data: {
        accountId: entry.accountId,
        actor: entry.actor.id,
        action: entry.action,
        target: entry.target ?? null,
        requestId,
        ...(entry.details ? { details: entry.details } : {}),
      },
    });
    return;
  }
  await executor.query({
    name: "audit-insert",
    text: INSERT_AUDIT,
    values: [
      entry.accountId,
      entry.actor.id,
      entry.action,
      entry.target ?? null,
      requestId,
      entry.details ? JSON.stringify(entry.details) : null,
    ],
  });
}

/**
 * `recordAudit` for the account and actor of a service's input, the action named after the actor's origin
 * (`auditAction(input.actor, name)`).
 */
export function recordAuditAs(
  executor: AuditExecutor,
  input: { accountId: string | null; actor: Actor },
  name: string,
  entry: Pick<AuditEntry, "target" | "details"> = {},
): Promise<void> {
  return recordAudit(executor, {
    accountId: input.accountId,
    actor: input.actor,
    action: auditAction(input.actor, name),
    ...entry,
  });
}

export interface AuditFilters {
  /** Part of the actor, any case (`panel:ana@`, `api_key:`, `cli`). */
  actor?: string | undefined;
  /** An action or its dotted prefix: `panel.api_key` matches `panel.api_key.created` and `.revoked`. */
  action?: string | undefined;
  /** Entries at or after this instant. */
  since?: Date | undefined;
  /** Entries before this instant. */
  until?: Date | undefined;
}

export interface AuditEntryView {
  id: number;
  actor: string;
  action: string;
  target: string | null;
  request_id: string | null;
  details: Prisma.JsonValue;
  created_at: string;
}

/**
 * The account's audit entries, newest first; `limit` (default 100) is kept within 1..1000. Keyset paging on the
 * id (the (account_id, id) index): `beforeId` is the previous page's `next_before_id`.
 */
export async function listAudit(
  deps: { db: Db },
  input: AuditFilters & { accountId: string; limit?: number | undefined; beforeId?: number | undefined },
): Promise<{ entries: AuditEntryView[]; next_before_id: number | null }> {
  const asked = input.limit !== undefined && Number.isFinite(input.limit) ? input.limit : 100;
  const limit = Math.min(Math.max(Math.trunc(asked), 1), 1000);
  const action = input.action?.trim();
  const actor = input.actor?.trim();
  const rows = await deps.db.auditEntry.findMany({
    where: {
      accountId: input.accountId,
      ...(input.beforeId !== undefined ? { id: { lt: BigInt(input.beforeId) } } : {}),
      ...(actor ? { actor: { contains: actor, mode: "insensitive" as const } } : {}),
      // The exact action, or the actions under it (`x.y` matches `x.y.z`, never `x.yz`).
      ...(action ? { OR: [{ action }, { action: { startsWith: `${action}.` } }] } : {}),
      ...(input.since || input.until
        ? { createdAt: { ...(input.since ? { gte: input.since } : {}), ...(input.until ? { lt: input.until } : {}) } }
        : {}),
    },
    orderBy: { id: "desc" },
    // One more than asked tells whether another page exists.
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    entries: page.map((row) => ({
      id: Number(row.id),
      actor: row.actor,
      action: row.action,
      target: row.target,
      request_id: row.requestId,
      details: row.details,
      created_at: row.createdAt.toISOString(),
    })),
    next_before_id: rows.length > limit && last ? Number(last.id) : null,
  };
}
