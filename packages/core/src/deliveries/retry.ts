import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { WebhookQueue } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import { recordAudit } from "../audit/audit.ts";
import { ensureAttemptQueued } from "./queueing.ts";

export interface RetryDeliveryInput {
  db: Db;
  queue: WebhookQueue;
  accountId: string;
  /** The path parameter; anything that is not a positive integer is simply not found. */
  deliveryId: string | number | bigint;
  /** Who asked: `api_key:<id>`, `cli`, `panel:<user>`. */
  actor: string;
  /** `api.webhook.retry` from the public API, `webhook.retry` from the panel or the CLI (spec 4.7). */
  action: string;
  requestId?: string | null;
  logger?: Logger;
  now?: Date;
}

export interface RetriedDelivery {
  id: string;
  status: "pending";
  previousStatus: "failed" | "delivered";
  /** Number of the attempt that was queued (X-PT-Attempt keeps counting across manual retries). */
  nextAttempt: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_BIGINT = 9_223_372_036_854_775_807n;

function parseDeliveryId(value: string | number | bigint): bigint | null {
  const text = String(value);
  if (!/^\d{1,19}$/.test(text)) return null;
  const id = BigInt(text);
  return id >= 1n && id <= MAX_BIGINT ? id : null;
}

/**
 * Put a failed or delivered delivery back in the queue with a fresh budget of automatic attempts (spec 3.2,
 * 4.7). The row change and the audit entry commit together; the job is queued after the commit (should that
 * fail, the row is pending and due, so the reconciler queues it).
 */
export async function retryDelivery(input: RetryDeliveryInput): Promise<RetriedDelivery> {
  const { db, accountId } = input;
  const id = parseDeliveryId(input.deliveryId);
  if (id === null || !UUID.test(accountId)) throw new ApiError("not_found");
  const now = input.now ?? new Date();

  const retried = await db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ status: string; attempt_count: number }[]>`
      SELECT status, attempt_count FROM deliveries WHERE id = ${id} AND account_id = ${accountId}::uuid FOR UPDATE`;
    const row = rows[0];
    if (!row) throw new ApiError("not_found");
    if (row.status !== "failed" && row.status !== "delivered") throw new ApiError("delivery_not_retryable");
    await tx.delivery.update({
      where: { id },
      data: {
        status: "pending",
        budgetStart: row.attempt_count,
        nextAttemptAt: now,
        deliveredAt: null,
        updatedAt: now,
      },
    });
    await recordAudit(tx, {
      accountId,
      actor: input.actor,
      action: input.action,
      target: `delivery:${id}`,
      requestId: input.requestId ?? null,
      details: { previous_status: row.status, next_attempt: row.attempt_count + 1 },
    });
    return { previousStatus: row.status, nextAttempt: row.attempt_count + 1 };
  });

  await enqueueQuietly(input.queue, id, retried.nextAttempt, input.logger);
  return {
    id: id.toString(),
    status: "pending",
    previousStatus: retried.previousStatus as "failed" | "delivered",
    nextAttempt: retried.nextAttempt,
  };
}

export type RetryFailedInput = Omit<RetryDeliveryInput, "deliveryId">;

/** How many jobs are queued at once after a bulk retry. */
const ENQUEUE_CONCURRENCY = 16;

/**
 * Every failed delivery of the account back to the queue (spec 4.8): one set-based UPDATE and one audit
 * entry in a transaction, then one job per delivery. Returns how many were re-queued.
 */
export async function retryFailedDeliveries(input: RetryFailedInput): Promise<number> {
  const { db, accountId } = input;
  if (!UUID.test(accountId)) return 0;
  const now = input.now ?? new Date();

  const rows = await db.$transaction(async (tx) => {
    const updated = await tx.$queryRaw<{ id: bigint; attempt_count: number }[]>`
      UPDATE deliveries
      SET status = 'pending', budget_start = attempt_count, next_attempt_at = ${now}, delivered_at = NULL, updated_at = ${now}
      WHERE account_id = ${accountId}::uuid AND status = 'failed'
      RETURNING id, attempt_count`;
    if (updated.length > 0) {
      await recordAudit(tx, {
        accountId,
        actor: input.actor,
        action: input.action,
        target: "deliveries:failed",
        requestId: input.requestId ?? null,
        details: { count: updated.length },
      });
    }
    return updated;
  });

  for (let i = 0; i < rows.length; i += ENQUEUE_CONCURRENCY) {
    await Promise.all(
      rows
        .slice(i, i + ENQUEUE_CONCURRENCY)
        .map((row) => enqueueQuietly(input.queue, row.id, row.attempt_count + 1, input.logger)),
    );
  }
  return rows.length;
}

async function enqueueQuietly(
  queue: WebhookQueue,
  id: bigint,
  attempt: number,
  logger: Logger | undefined,
): Promise<void> {
  try {
    await ensureAttemptQueued(queue, id, attempt, 0);
  } catch (error) {
    // Already committed as pending and due: the reconciler queues it once Redis answers.
    logger?.warn("retry recorded but its job could not be queued now; the sweep will queue it", {
      deliveryId: id.toString(),
      attempt,
      error: (error as Error).message,
    });
  }
}
