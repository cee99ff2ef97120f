import type { Db } from "@gw/db";
import type { WebhookQueue } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import { signWebhook } from "@gw/signer";
import { ensureAttemptQueued } from "./queueing.ts";
import { nextDelayMs } from "./schedule.ts";
import type { DeliveryErrorKind, WebhookResult, WebhookSender } from "./sender.ts";

export const DELIVERY_STATUSES = ["pending", "delivering", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliverySettings {
  /** Waits before the retries of one budget, in ms (spec 6.5). */
  scheduleMs: readonly number[];
  /** Uniform variation of each wait, 0.2 = ±20 %. */
  jitter: number;
  userAgent: string;
}

export interface ProcessDeliveryDeps {
  db: Db;
  /** Where the next attempt is queued. */
  queue: WebhookQueue;
  sender: WebhookSender;
  logger: Logger;
  settings: DeliverySettings;
  now?: () => Date;
  random?: () => number;
}

export interface AttemptJob {
  deliveryId: string;
  attempt: number;
}

export type AttemptOutcome =
  | {
      outcome: "delivered" | "retry_scheduled" | "failed";
      attempt: number;
      event: string;
      statusCode: number | null;
      errorKind: DeliveryErrorKind | null;
      durationMs: number;
      /** Set for `retry_scheduled`. */
      nextAttemptAt: Date | null;
    }
  | { outcome: "integration_inactive"; attempt: number; event: string }
  /** Nothing done: the row no longer wants this attempt (duplicate, stale or already performed job). */
  | { outcome: "skipped"; attempt: number; reason: "not_found" | "stale" | "raced" };

const WORKABLE: DeliveryStatus[] = ["pending", "delivering"];

/**
 * Perform one attempt of one delivery. Postgres is the source of truth: the row is reloaded, claimed with a
 * conditional update, and the attempt's outcome is committed (attempt row + delivery) before this returns,
 * so the job completes only once nothing can be lost. Safe to run twice for the same attempt: the claim
 * accepts a `delivering` row left by a crashed worker, and the attempt row is an upsert.
 */
export async function processDeliveryAttempt(deps: ProcessDeliveryDeps, job: AttemptJob): Promise<AttemptOutcome> {
  const { db, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const { attempt } = job;
  const id = BigInt(job.deliveryId);
  const log = { deliveryId: job.deliveryId, attempt };

  const delivery = await db.delivery.findUnique({ where: { id }, include: { integration: true } });
  if (!delivery) {
    logger.warn("entrega não encontrada; job descartado", log);
    return { outcome: "skipped", attempt, reason: "not_found" };
  }
  const claimable = { id, status: { in: WORKABLE }, attemptCount: attempt - 1 };
  if (!WORKABLE.includes(delivery.status as DeliveryStatus) || delivery.attemptCount !== attempt - 1) {
    logger.debug("job obsoleto; a entrega não espera esta tentativa", {
      ...log,
      status: delivery.status,
      attemptCount: delivery.attemptCount,
    });
    return { outcome: "skipped", attempt, reason: "stale" };
  }

  if (!delivery.integration.active) {
    // Dead-letter without an HTTP attempt: a manual retry after re-activation sends it.
    const { count } = await db.delivery.updateMany({
      where: claimable,
      data: {
        status: "failed",
        nextAttemptAt: null,
        lastStatusCode: null,
        lastError: null,
        lastErrorKind: "integration_inactive",
        updatedAt: now(),
      },
    });
    if (count === 0) return { outcome: "skipped", attempt, reason: "raced" };
    logger.info("integração desativada; entrega marcada como failed", log);
    return { outcome: "integration_inactive", attempt, event: delivery.event };
  }

  const claimed = await db.delivery.updateMany({ where: claimable, data: { status: "delivering", updatedAt: now() } });
  if (claimed.count === 0) return { outcome: "skipped", attempt, reason: "raced" };

  // Current secret and a fresh timestamp on every attempt (spec 5.6): the body bytes never change.
  const startedAt = now();
  const timestamp = Math.floor(startedAt.getTime() / 1000);
  const result: WebhookResult = await deps.sender.send({
    url: delivery.integration.url,
    body: delivery.body,
    headers: {
      "Content-Type": "application/json",
      "User-Agent": deps.settings.userAgent,
      "X-PT-Timestamp": String(timestamp),
      "X-PT-Signature": signWebhook(delivery.integration.signingSecret, timestamp, delivery.body),
      "X-PT-Delivery-Id": id.toString(),
      "X-PT-Attempt": String(attempt),
      "X-PT-Event": delivery.event,
    },
  });

  const finishedAt = now();
  const ok = result.errorKind === null;
  const delay = ok
    ? null
    : nextDelayMs(attempt - delivery.budgetStart, deps.settings.scheduleMs, deps.settings.jitter, deps.random);
  const outcome: "delivered" | "retry_scheduled" | "failed" = ok
    ? "delivered"
    : delay === null
      ? "failed"
      : "retry_scheduled";
  const nextAttemptAt = delay === null ? null : new Date(finishedAt.getTime() + delay);

  const committed = await db.$transaction(async (tx) => {
    const updated = await tx.delivery.updateMany({
      where: { id, status: "delivering", attemptCount: attempt - 1 },
      data: {
        status: outcome === "retry_scheduled" ? "pending" : outcome,
        attemptCount: attempt,
        nextAttemptAt,
        lastStatusCode: result.statusCode,
        lastError: result.responseBody,
        lastErrorKind: result.errorKind,
        ...(ok ? { deliveredAt: finishedAt } : {}),
        updatedAt: finishedAt,
      },
    });
    // Another worker re-ran this attempt and committed first: keep its record.
    if (updated.count === 0) return false;
    const attemptRow = {
      startedAt,
      durationMs: result.durationMs,
      statusCode: result.statusCode,
      errorKind: result.errorKind,
      responseBody: result.responseBody,
    };
    await tx.deliveryAttempt.upsert({
      where: { deliveryId_number: { deliveryId: id, number: attempt } },
      create: { deliveryId: id, number: attempt, ...attemptRow },
      update: attemptRow,
    });
    return true;
  });
  if (!committed) {
    logger.warn("tentativa concluída por outro worker; resultado descartado", log);
    return { outcome: "skipped", attempt, reason: "raced" };
  }

  const fields = {
    ...log,
    outcome,
    statusCode: result.statusCode,
    errorKind: result.errorKind,
    durationMs: result.durationMs,
  };
  if (outcome === "retry_scheduled" && delay !== null) {
    try {
      await ensureAttemptQueued(deps.queue, id, attempt + 1, delay);
    } catch (error) {
      // The row is pending with next_attempt_at set: the reconciler queues it once Redis answers.
      logger.warn("não foi possível agendar a próxima tentativa; o reconciliador a recupera", {
        ...log,
        error: (error as Error).message,
      });
    }
    logger.info("tentativa de webhook falhou; nova tentativa agendada", { ...fields, delayMs: delay });
  } else if (outcome === "failed") {
    logger.warn("tentativas automáticas esgotadas; entrega em failed", fields);
  } else {
    logger.info("webhook entregue", fields);
  }
  return {
    outcome,
    attempt,
    event: delivery.event,
    statusCode: result.statusCode,
    errorKind: result.errorKind,
    durationMs: result.durationMs,
    nextAttemptAt,
  };
}
