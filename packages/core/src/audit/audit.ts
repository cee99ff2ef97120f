import type { Db, DbTx, Prisma } from "@gw/db";

export interface AuditInput {
  accountId: string | null;
  /** Who acted: `api_key:<id>`, `panel:<email>`, `cli`, `system`. */
  actor: string;
  /** Dotted action; API-originated actions start with `api.` (spec 3.2, 4.7), the panel's with `panel.`. */
  action: string;
  target?: string | null;
  requestId?: string | null;
  details?: Prisma.InputJsonObject;
}

/** One audit entry; `deps.db` may be the caller's transaction, so the entry commits with the change it records. */
export async function recordAudit(deps: { db: Db | DbTx }, entry: AuditInput): Promise<void> {
  await deps.db.auditEntry.create({
    data: {
      accountId: entry.accountId,
      actor: entry.actor,
      action: entry.action,
      target: entry.target ?? null,
      requestId: entry.requestId ?? null,
      ...(entry.details ? { details: entry.details } : {}),
    },
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
