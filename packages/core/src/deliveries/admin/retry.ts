import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { AttemptToQueue, WebhookQueue } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import { recordAudit, type Actor } from "../../audit/audit.ts";

/**
 * The contract names a resend's audit action (spec 3.2, 4.7): `api.webhook.retry` from the public API, and
 * `webhook.retry` (the panel's) from the panel and the operator's CLI.
 */
export function retryAction(actor: Actor): string {
  return actor.origin === "api" ? "api.webhook.retry" : "webhook.retry";
}
import { ensureAttemptQueued, ensureAttemptsQueued } from "../attempt/queueing.ts";

export interface RetryDeps {
  db: Db;
  queue: WebhookQueue;
  /** Warned when a retry is committed but its job cannot be queued now. */
  logger?: Logger;
}

export interface RetryDeliveryInput {
  accountId: string;
  /** The path parameter; anything that is not a positive integer is simply not found. */
  deliveryId: string | number | bigint;
  /** Who asked: the public API, the panel or the CLI. */
  actor: Actor;
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
 * Put a failed or delivered delivery back in the queue with a fresh budget of automatic attempts (spec 3.2, 4.7),
 * and so a fresh deadline (`budget_started_at`, see attempt/expiry.ts). The row change and the audit entry commit together;
 * the job is queued after the commit (should that fail, the row is pending and due, so the reconciler queues it).
 */
export async function retryDelivery(deps: RetryDeps, input: RetryDeliveryInput): Promise<RetriedDelivery> {
  const { db } = deps;
  const { accountId } = input;
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
        // A fresh budget, so a fresh deadline (the dispatcher's expiry counts from here).
        budgetStartedAt: now,
        nextAttemptAt: now,
        deliveredAt: null,
        updatedAt: now,
      },
    });
    await recordAudit(tx, {
      accountId,
      actor: input.actor,
      action: retryAction(input.actor),
      target: `delivery:${id}`,
      details: { previous_status: row.status, next_attempt: row.attempt_count + 1 },
    });
    return { previousStatus: row.status, nextAttempt: row.attempt_count + 1 };
  });

  await enqueueQuietly(deps, id, retried.nextAttempt);
  return {
    id: id.toString(),
    status: "pending",
    previousStatus: retried.previousStatus as "failed" | "delivered",
    nextAttempt: retried.nextAttempt,
  };
}

export type RetryFailedInput = Omit<RetryDeliveryInput, "deliveryId"> & {
  /** Deliveries re-queued per transaction (default RETRY_BATCH_SIZE). */
  batchSize?: number;
};

/** Deliveries re-queued per transaction by a bulk retry. */
const RETRY_BATCH_SIZE = 1_000;

/**
 * Every failed delivery of the account back to the queue (spec 4.8), in short batches, never one unbounded
 * transaction: each batch (at most `batchSize` rows, in id order) is one UPDATE with its audit entry in one
 * transaction, and its jobs are queued with addBulk right after that commit. A failure half-way leaves the batches
 * before it committed and queued; calling again picks up the rest. Returns how many were re-queued.
 */
export async function retryFailedDeliveries(deps: RetryDeps, input: RetryFailedInput): Promise<number> {
  const { db } = deps;
  const { accountId } = input;
  if (!UUID.test(accountId)) return 0;
  const now = input.now ?? new Date();
  const batchSize = Math.max(1, Math.floor(input.batchSize ?? RETRY_BATCH_SIZE));

  let total = 0;
  let after = 0n;
  for (let batch = 1; ; batch++) {
    const rows = await db.$transaction(async (tx) => {
      // Through the (account_id, status, id) index; a row changed meanwhile is left alone by the outer WHERE.
      const updated = await tx.$queryRaw<{ id: bigint; attempt_count: number; integration_id: string }[]>`
        UPDATE deliveries d
        SET status = 'pending', budget_start = d.attempt_count, budget_started_at = ${now}, next_attempt_at = ${now},
          delivered_at = NULL, updated_at = ${now}
        FROM (
          SELECT id FROM deliveries
          WHERE account_id = ${accountId}::uuid AND status = 'failed' AND id > ${after}
          ORDER BY id LIMIT ${batchSize}
        ) AS batch
        WHERE d.id = batch.id AND d.status = 'failed'
        RETURNING d.id, d.attempt_count, d.integration_id::text AS integration_id`;
      if (updated.length > 0) {
        await recordAudit(tx, {
          accountId,
          actor: input.actor,
          action: retryAction(input.actor),
          target: "deliveries:failed",
          details: { count: updated.length, batch },
        });
      }
      return updated;
    });
    if (rows.length === 0) return total;
    total += rows.length;
    for (const row of rows) if (row.id > after) after = row.id;
    await enqueueBatchQuietly(
      deps,
      rows.map((row) => ({
        deliveryId: row.id.toString(),
        attempt: row.attempt_count + 1,
        integrationId: row.integration_id,
      })),
    );
  }
}

async function enqueueBatchQuietly(deps: RetryDeps, attempts: AttemptToQueue[]): Promise<void> {
  try {
    await ensureAttemptsQueued(deps.queue, attempts);
  } catch (error) {
    // Already committed as pending and due: the reconciler queues them once Redis answers.
    deps.logger?.warn("retries recorded but their jobs could not be queued now; the sweep will queue them", {
      count: attempts.length,
      error: (error as Error).message,
    });
  }
}

async function enqueueQuietly(deps: RetryDeps, id: bigint, attempt: number): Promise<void> {
  try {
    await ensureAttemptQueued(deps.queue, id, attempt, 0);
  } catch (error) {
    // Already committed as pending and due: the reconciler queues it once Redis answers.
    deps.logger?.warn("retry recorded but its job could not be queued now; the sweep will queue it", {
      deliveryId: id.toString(),
      attempt,
      error: (error as Error).message,
    });
  }
}
