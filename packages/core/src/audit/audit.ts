import type { Db, DbTx, Prisma } from "@gw/db";

export interface AuditInput {
  accountId: string | null;
  /** Who acted: `api_key:<id>`, `cli`, `system`. */
  actor: string;
  /** Dotted action; API-originated actions start with `api.` (spec 3.2, 4.7). */
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

/** The account's audit entries, newest first; `limit` (default 100) is kept within 1..1000. */
export async function listAudit(deps: { db: Db }, input: { accountId: string; limit?: number | undefined }) {
  const rows = await deps.db.auditEntry.findMany({
    where: { accountId: input.accountId },
    orderBy: { id: "desc" },
    take: Math.min(Math.max(input.limit ?? 100, 1), 1000),
  });
  return rows.map((row) => ({
    id: Number(row.id),
    actor: row.actor,
    action: row.action,
    target: row.target,
    request_id: row.requestId,
    details: row.details,
    created_at: row.createdAt.toISOString(),
  }));
}
