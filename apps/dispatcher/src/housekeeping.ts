import type { Db } from "@gw/db";
import { clearExpiredPreviousSecrets } from "@gw/core/deliveries";
import { rollupPricingDays } from "@gw/core/pricing";
import { purgeExpiredIdempotencyKeys, purgeExpiredPanelSessions } from "@gw/core/retention";
import { budgetLifetimeMs, failExpiredDeliveries, sweepDeliveries, type SweepResult } from "@gw/core/deliveries";
import type { PeriodicTaskSpec, Redis, WebhookQueue } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import type { DispatcherConfig } from "./config.ts";
import type { DispatcherMetrics } from "./metrics.ts";

/**
 * The dispatcher's housekeeping as periodic tasks (its registry, @gw/jobs `createPeriodicTasks`, runs them with the
 * retention purge of ./retention.ts and the replay sweep of ./replays.ts). Any number of dispatcher pods may run
 * each at once: every one is idempotent or takes what it changes under a lock.
 */

/** One run of the sweep: deliveries past their schedule's deadline failed, then missing jobs queued. */
export interface ReconcileResult extends SweepResult {
  /** Deliveries failed because their retry schedule's deadline passed. */
  expired: number;
}

/**
 * Fails the deliveries past their schedule's deadline, then gives every due delivery (and every retry entering the
 * horizon) its job; runs again at once while there is more.
 */
export function deliverySweep(deps: {
  db: Db;
  queue: WebhookQueue;
  /** The dispatcher's producer connection (fails fast). */
  redis: Redis;
  logger: Logger;
  metrics: DispatcherMetrics;
  config: DispatcherConfig;
}): PeriodicTaskSpec<ReconcileResult> {
  const { db, queue, redis, logger, metrics, config } = deps;
  // The longest one budget of the configured schedule can take (spec 6.5): a delivery still pending past it was held
  // back (breaker, cap, outage) and is failed by the sweep.
  const lifetimeMs = budgetLifetimeMs({
    scheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
    jitter: config.WEBHOOK_RETRY_JITTER,
    attemptTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
  });
  return {
    name: "delivery_sweep",
    intervalMs: config.RECONCILE_INTERVAL_MS,
    failure: "delivery sweep failed; trying again next cycle",
    again: (result) => result.more,
    async run() {
      // Without Redis there is nowhere to put jobs (and BullMQ would wait for the connection): next cycle.
      if (redis.status !== "ready") return { scanned: 0, queued: 0, more: false, expired: 0 };
      // First, so the sweep does not queue what is about to fail.
      const expiry = await failExpiredDeliveries(
        { db, queue, logger },
        { lifetimeMs, batchSize: config.RECONCILE_BATCH_SIZE },
      );
      for (const [event, count] of Object.entries(expiry.byEvent)) {
        metrics.deadLetters.inc({ event }, count);
        metrics.expired.inc({ event }, count);
      }
      const result = await sweepDeliveries(
        { db, queue, redis, logger, attemptTimeoutMs: config.WEBHOOK_TIMEOUT_MS },
        {
          horizonMs: config.DISPATCHER_SCHEDULE_HORIZON_MS,
          graceMs: config.RECONCILE_GRACE_MS,
          batchSize: config.RECONCILE_BATCH_SIZE,
          maxQueued: config.DISPATCHER_MAX_QUEUED_JOBS,
        },
      );
      metrics.requeued.inc(result.queued);
      return { ...result, expired: expiry.expired, more: result.more || expiry.more };
    },
  };
}

/**
 * Idempotency keys past their TTL, expired panel sessions and previous signing secrets past their rotation overlap
 * (no longer used to sign); the deletes are idempotent.
 */
export function expiredKeysPurge(deps: { db: Db; logger: Logger; config: DispatcherConfig }): PeriodicTaskSpec<void> {
  const { db, logger } = deps;
  return {
    name: "idempotency_purge",
    intervalMs: deps.config.IDEMPOTENCY_PURGE_INTERVAL_MS,
    failure: "expired keys and sessions purge failed; trying again next cycle",
    async run() {
      const removed = await purgeExpiredIdempotencyKeys({ db });
      if (removed > 0) logger.info("expired idempotency keys removed", { removed });
      const sessions = await purgeExpiredPanelSessions({ db });
      if (sessions > 0) logger.info("expired panel sessions removed", { removed: sessions });
      const secrets = await clearExpiredPreviousSecrets({ db });
      if (secrets > 0) logger.info("previous signing secrets past their overlap cleared", { integrations: secrets });
    },
  };
}

/**
 * The cost ledger's daily rollup (docs/decisions.md, "Per-message pricing and costs"). It works once per São Paulo
 * day (each run after that is one read of its state); each account's days are replaced under an advisory lock. An
 * aborted run lets the account in progress finish.
 */
export function pricingRollup(deps: { db: Db; logger: Logger; config: DispatcherConfig }): PeriodicTaskSpec<void> {
  const { db, logger } = deps;
  return {
    name: "pricing_rollup",
    intervalMs: deps.config.PRICING_ROLLUP_INTERVAL_MS,
    failure: "pricing rollup failed; trying again next cycle",
    async run(signal) {
      const result = await rollupPricingDays({ db }, { signal });
      if (result.ran)
        logger.info("pricing rollup rolled the closed days", {
          rolledBefore: result.rolledBefore,
          accounts: result.accounts,
          accountDays: result.days,
        });
    },
  };
}
