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
  deps: { db: Db },
  input: { accountId: string; status?: string | undefined; limit: number; beforeId?: number | undefined },
) {
  const rows = await deps.db.delivery.findMany({
    where: {
      accountId: input.accountId,
      ...(input.status ? { status: input.status } : {}),
      ...(input.beforeId ? { id: { lt: BigInt(input.beforeId) } } : {}),
    },
    include: { integration: { select: { url: true } } },
    orderBy: { id: "desc" },
    // One more than asked tells whether another page exists.
    take: input.limit + 1,
  });
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return { deliveries: page.map(view), next_before_id: rows.length > input.limit && last ? Number(last.id) : null };
}

/** GET /public/v1/deliveries/{id} (spec 4.6); another account's id is `not_found`. */
export async function getDelivery(deps: { db: Db }, input: { accountId: string; deliveryId: number }) {
  const row = await deps.db.delivery.findFirst({
    where: { id: BigInt(input.deliveryId), accountId: input.accountId },
    include: { integration: { select: { url: true } } },
  });
  if (!row) throw new ApiError("not_found", { message: "A entrega não foi encontrada nesta conta." });
  return { ...view(row), envelope: JSON.parse(row.body) as Record<string, unknown> };
}
