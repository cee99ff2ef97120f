import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";

type DeliveryRow = Awaited<ReturnType<Db["delivery"]["findFirst"]>> & object;

function view(row: DeliveryRow & { integration: { url: string } }) {
  return {
    id: Number(row.id),
    event: row.event,
    status: row.status,
    attempts: row.attemptCount,
    next_attempt_at: row.nextAttemptAt?.toISOString() ?? null,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    last_error_kind: row.lastErrorKind,
    created_at: row.createdAt.toISOString(),
    delivered_at: row.deliveredAt?.toISOString() ?? null,
    occurred_at: row.occurredAt.toISOString(),
    endpoint_url: row.integration.url,
  };
}

/** GET /public/v1/deliveries (spec 4.5): most recent first, cursor `before_id`. */
export async function listDeliveries(
  db: Db,
  accountId: string,
  query: { status?: string | undefined; limit: number; before_id?: number | undefined },
) {
  const rows = await db.delivery.findMany({
    where: {
      accountId,
      ...(query.status ? { status: query.status } : {}),
      ...(query.before_id ? { id: { lt: BigInt(query.before_id) } } : {}),
    },
    include: { integration: { select: { url: true } } },
    orderBy: { id: "desc" },
    // One more than asked tells whether another page exists.
    take: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return { deliveries: page.map(view), next_before_id: rows.length > query.limit && last ? Number(last.id) : null };
}

/** GET /public/v1/deliveries/{id} (spec 4.6); another account's id is `not_found`. */
export async function getDelivery(db: Db, accountId: string, id: number) {
  const row = await db.delivery.findFirst({
    where: { id: BigInt(id), accountId },
    include: { integration: { select: { url: true } } },
  });
  if (!row) throw new ApiError("not_found", { message: "A entrega não foi encontrada nesta conta." });
  return { ...view(row), envelope: JSON.parse(row.body) as Record<string, unknown> };
}
