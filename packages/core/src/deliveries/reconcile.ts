import type { Db } from "@gw/db";
import type { WebhookQueue } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import { ensureAttemptQueued } from "./queueing.ts";

export interface ReconcileDeps {
  db: Db;
  queue: WebhookQueue;
  logger: Logger;
  /** Per-attempt deadline: a `delivering` row older than this (plus grace) lost its worker. */
  attemptTimeoutMs: number;
}

export interface ReconcileOptions {
  now?: Date;
  /** How late a due row may be before we assume its job is lost (covers the producer's commit→enqueue gap). */
  graceMs: number;
  /** Rows examined per run. */
  batchSize?: number;
  /** Resume after this id (the previous run's `nextAfterId`); 0 / undefined starts from the oldest. */
  afterId?: bigint;
}

export interface ReconcileResult {
  /** Rows that needed work and were looked at. */
  scanned: number;
  /** Rows whose job was missing (or finished) and was queued again. */
  requeued: number;
  /** Where the next run continues; null once the table was covered (start again from the oldest). */
  nextAfterId: bigint | null;
}

interface Candidate {
  id: bigint;
  status: string;
  attempt_count: number;
}

/**
 * Queue again the deliveries that are due (pending, past next_attempt_at, or never scheduled) or stuck
 * (delivering for longer than an attempt can take) but have no live job in BullMQ — after a Redis
 * FLUSHALL, a lost enqueue, or a job that failed without updating the row. Idempotent: the job id is derived
 * from delivery + attempt. Pages through the table by id so a backlog of live jobs never hides the rest.
 */
export async function reconcileDeliveries(deps: ReconcileDeps, options: ReconcileOptions): Promise<ReconcileResult> {
  const now = options.now ?? new Date();
  const batchSize = options.batchSize ?? 500;
  const afterId = options.afterId ?? 0n;
  const due = new Date(now.getTime() - options.graceMs);
  const stuck = new Date(now.getTime() - deps.attemptTimeoutMs - options.graceMs);

  const rows = await deps.db.$queryRaw<Candidate[]>`
    SELECT id, status, attempt_count
    FROM deliveries
    WHERE id > ${afterId}
      AND ((status = 'pending' AND COALESCE(next_attempt_at, created_at) <= ${due})
        OR (status = 'delivering' AND updated_at <= ${stuck}))
    ORDER BY id
    LIMIT ${batchSize}`;

  let requeued = 0;
  for (const row of rows) {
    const attempt = row.attempt_count + 1;
    const result = await ensureAttemptQueued(deps.queue, row.id, attempt, 0);
    if (result !== "already_live") {
      requeued += 1;
      deps.logger.info("entrega sem job ativo colocada de volta na fila", {
        deliveryId: row.id.toString(),
        attempt,
        status: row.status,
        result,
      });
    }
  }
  const last = rows.at(-1);
  return { scanned: rows.length, requeued, nextAfterId: rows.length === batchSize && last ? last.id : null };
}
