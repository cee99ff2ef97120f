import type { DeliveryListItem } from "@gw/contracts";
import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";

type DeliveryRow = Awaited<ReturnType<Db["delivery"]["findFirst"]>> & object;

/** The contract's delivery. The columns are text; they hold only what the outbox and the dispatcher write, typed by
 * the same lists. */
function view(row: DeliveryRow & { integration: { url: string } }): DeliveryListItem {
  return {
    id: Number(row.id),
    event: row.event as DeliveryListItem["event"],
    status: row.status as DeliveryListItem["status"],
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

export interface ListDeliveriesInput {
  accountId: string;
  status?: string | undefined;
  /** Only this event (`message.status`, `message.received`, `account.update`). */
  event?: string | undefined;
  /** Created at or after this instant. */
  createdFrom?: Date | undefined;
  /** Created strictly before this instant. */
  createdBefore?: Date | undefined;
  limit: number;
  /** Keyset cursor: the previous page's `next_before_id`. */
  beforeId?: number | undefined;
}

/**
 * GET /public/v1/deliveries (spec 4.5) and the panel's queue: most recent first, cursor `before_id`. The public
 * API filters by status only; the panel also by event and creation time.
 */
export async function listDeliveries(deps: { db: Db }, input: ListDeliveriesInput) {
  const created =
    input.createdFrom || input.createdBefore
      ? {
          createdAt: {
            ...(input.createdFrom ? { gte: input.createdFrom } : {}),
            ...(input.createdBefore ? { lt: input.createdBefore } : {}),
          },
        }
      : {};
  const rows = await deps.db.delivery.findMany({
    where: {
      accountId: input.accountId,
      ...(input.status ? { status: input.status } : {}),
      ...(input.event ? { event: input.event } : {}),
      ...created,
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

/** Attempts shown by a delivery's detail: the most recent ones when manual resends piled up more. */
const DETAIL_ATTEMPTS = 100;
const MAX_BIGINT = 9_223_372_036_854_775_807n;

/**
 * One delivery with its attempts, newest last, and the exact body sent (the panel's detail). The id may come
 * straight from a URL: anything that is not one of the account's deliveries is `not_found`.
 */
export async function getDeliveryDetail(
  deps: { db: Db },
  input: { accountId: string; deliveryId: string | number | bigint },
) {
  const text = String(input.deliveryId);
  const id = /^\d{1,19}$/.test(text) ? BigInt(text) : 0n;
  const notFound = () => new ApiError("not_found", { message: "A entrega não foi encontrada nesta conta." });
  if (id < 1n || id > MAX_BIGINT) throw notFound();
  const row = await deps.db.delivery.findFirst({
    where: { id, accountId: input.accountId },
    include: {
      integration: { select: { url: true } },
      attempts: { orderBy: { number: "desc" }, take: DETAIL_ATTEMPTS + 1 },
    },
  });
  if (!row) throw notFound();
  const attempts = row.attempts.slice(0, DETAIL_ATTEMPTS).reverse();
  return {
    ...view(row),
    integration_id: row.integrationId,
    /** The bytes every attempt sent and signed (spec 5.4), unchanged across attempts. */
    body: row.body,
    envelope: JSON.parse(row.body) as Record<string, unknown>,
    attempt_list: attempts.map((attempt) => ({
      number: attempt.number,
      started_at: attempt.startedAt.toISOString(),
      duration_ms: attempt.durationMs,
      status_code: attempt.statusCode,
      error_kind: attempt.errorKind,
      /** The endpoint's answer (bounded), or the transport error; cleared by retention after a while. */
      response_body: attempt.responseBody,
    })),
    /** Older attempts exist beyond `attempt_list`. */
    attempts_truncated: row.attempts.length > DETAIL_ATTEMPTS,
  };
}
