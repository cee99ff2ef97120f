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

export async function recordAudit(db: Db | DbTx, entry: AuditInput): Promise<void> {
  await db.auditEntry.create({
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

export async function listAudit(db: Db, accountId: string, limit = 100) {
  const rows = await db.auditEntry.findMany({
    where: { accountId },
    orderBy: { id: "desc" },
    take: Math.min(Math.max(limit, 1), 1000),
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
