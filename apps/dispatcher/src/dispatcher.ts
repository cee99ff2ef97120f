import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { Worker } from "bullmq";
import { createDb, isDatabaseUnavailable, type Db } from "@gw/db";
import {
  closeRedis,
  createPeriodicTasks,
  createProbeServer,
  createProcessor,
  createRedis,
  createWebhookQueue,
  QUEUES,
  withDeadline,
  type JobHandlers,
} from "@gw/jobs";
import type { Logger } from "@gw/logger";
import { createSecretBox, SecretUnreadableError } from "@gw/core/accounts";
import { createCachedSecretBox, oldestDueDeliveryAgeSeconds } from "@gw/core/deliveries";
import { oldestEarlyStatusAgeSeconds } from "@gw/core/retention";
import {
  createDeliveryScheduler,
  createDeliveryStatements,
  createWebhookSender,
  disableIfFailing,
  processDeliveryAttempt,
  processFirstAttempts,
  type AttemptOutcome,
} from "@gw/core/deliveries";
import type { DispatcherConfig } from "./config.ts";
import { createFairnessGate } from "./fairness.ts";
import { deliverySweep, expiredKeysPurge, pricingRollup, type ReconcileResult } from "./housekeeping.ts";
import { createMetrics } from "./metrics.ts";
import { createReplayRunner } from "./replays.ts";
import { retentionPurge } from "./retention.ts";

export type { ReconcileResult } from "./housekeeping.ts";

/** What a job of several attempts kept on the completed job (Bull Board shows it): `delivered 17, held 1`. */
function outcomeSummary(outcomes: readonly AttemptOutcome[]): string {
  const counts = new Map<string, number>();
  for (const { outcome } of outcomes) counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  return [...counts].map(([outcome, count]) => `${outcome} ${count}`).join(", ");
}

export interface DispatcherDeps {
  logger: Logger;
  /** An existing client; when absent the dispatcher opens (and closes) its own from DATABASE_URL. */
  db?: Db;
}

export interface Dispatcher {
  /** Starts the probe server, the worker and the periodic tasks (housekeeping). */
  start(): Promise<void>;
  /** Stops taking jobs, waits for the attempts in flight, then closes Redis, Postgres and the probe server. */
  stop(): Promise<void>;
  /** The probe server's port, once started (useful with DISPATCHER_PORT=0). */
  readonly port: number;
  /** One sweep now (also what the interval does); null when it failed. */
  reconcileNow(): Promise<ReconcileResult | null>;
}

export function createDispatcher(config: DispatcherConfig, deps: DispatcherDeps): Dispatcher {
  const { logger } = deps;
  const ownsDb = !deps.db;
  const db =
    deps.db ??
    createDb({
      url: config.DATABASE_URL,
      poolSize: config.DATABASE_POOL_SIZE,
      synchronousCommit: config.DISPATCHER_SYNCHRONOUS_COMMIT,
    });
  // Separate connections: the worker's blocks (and must never give up on a command), the producer's fails fast.
  const workerRedis = createRedis(config, "worker");
  const queueRedis = createRedis(config, "request");
  for (const [role, redis] of [
    ["worker", workerRedis],
    ["queue", queueRedis],
  ] as const) {
    redis.on("error", (error: Error) => logger.warn("Redis connection error", { role, error: error.message }));
  }
  const queue = createWebhookQueue(queueRedis, config.REDIS_KEY_PREFIX);
  queue.on("error", (error: Error) => logger.warn("webhook queue error", { error: error.message }));
  const sender = createWebhookSender({
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    connectTimeoutMs: config.WEBHOOK_CONNECT_TIMEOUT_MS,
    allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    maxSockets: config.DISPATCHER_MAX_SOCKETS,
    responseBodyLimit: config.WEBHOOK_RESPONSE_BODY_LIMIT,
  });
  const metrics = createMetrics(queue, {
    oldestEarlyStatusAgeSeconds: () => oldestEarlyStatusAgeSeconds({ db }),
    oldestDueDeliveryAgeSeconds: () => oldestDueDeliveryAgeSeconds({ db }),
    openBreakers: () => gate.openBreakers(),
  });
  const scheduler = createDeliveryScheduler({
    queue,
    logger,
    horizonMs: config.DISPATCHER_SCHEDULE_HORIZON_MS,
    maxQueued: config.DISPATCHER_MAX_QUEUED_JOBS,
  });
  // Per-integration in-flight cap and circuit breaker (per process): one slow endpoint cannot hold every slot.
  const gate = createFairnessGate({
    // Unset: half the slots, so one integration can never hold more than half of them (the breaker frees those
    // too after a few timeouts), while a single healthy endpoint still gets enough attempts in flight.
    maxInFlight:
      config.DISPATCHER_MAX_IN_FLIGHT_PER_INTEGRATION ?? Math.max(1, Math.floor(config.DISPATCHER_CONCURRENCY / 2)),
    breakerFailures: config.DISPATCHER_BREAKER_FAILURES,
    breakerCooldownMs: config.DISPATCHER_BREAKER_COOLDOWN_MS,
    onBreakerOpened(integrationId, { failures, cooldownMs, probe }) {
      metrics.breakerOpened.inc({ cause: probe ? "probe_failed" : "failures" });
      logger.warn(
        probe
          ? "integration still not answering; circuit breaker open again"
          : "integration not answering; circuit breaker open, its deliveries wait without requests",
        { integrationId, failures, cooldownMs },
      );
    },
    onBreakerClosed(integrationId) {
      logger.info("integration answering again; circuit breaker closed", { integrationId });
    },
    onBreakerForgotten(integrationId) {
      logger.info("circuit breaker forgotten: no delivery of the integration is waiting to probe it", {
        integrationId,
      });
    },
  });
  const processDeps = {
    db,
    scheduler,
    sender,
    // Every attempt signs: what was decrypted is kept (keyed by the sealed value, so a new secret is never stale).
    secrets: createCachedSecretBox(createSecretBox(config.SECRETS_KEYS)),
    gate,
    // The claims and results of attempts running side by side share statements (group commit).
    statements: createDeliveryStatements(db, {
      maxBatch: config.DISPATCHER_BATCH_MAX_ATTEMPTS,
      maxInFlight: config.DISPATCHER_BATCH_MAX_IN_FLIGHT,
      onBatch: (statement, size) => metrics.statementBatch.observe({ statement }, size),
    }),
    logger,
    settings: {
      scheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
      jitter: config.WEBHOOK_RETRY_JITTER,
      userAgent: config.USER_AGENT,
      // A claim younger than the job lock is a live attempt's; BullMQ re-runs a dead worker's job only after it.
      claimStaleMs: config.DISPATCHER_LOCK_DURATION_MS,
    },
  };

  // Endpoint health: after a failed attempt, disable the integration once every attempt has failed for the threshold
  // (docs/decisions.md, "Endpoint health"). The attempt is recorded already: a failure here only loses this check.
  async function checkEndpointHealth(
    integrationId: string,
    lastError: { statusCode: number | null; errorKind: string },
  ): Promise<void> {
    try {
      const disabled = await disableIfFailing(
        { db, queue, logger },
        {
          integrationId,
          thresholdMs: config.WEBHOOK_DISABLE_AFTER_FAILING_MS,
          lastError,
        },
      );
      if (disabled) metrics.integrationsDisabled.inc();
    } catch (error) {
      logger.warn("endpoint health check failed; the next failed attempt checks again", {
        integrationId,
        error: (error as Error).message,
      });
    }
  }

  /** One attempt's outcome in the metrics; after a failed request, the endpoint's health is checked. */
  async function observe(result: AttemptOutcome): Promise<void> {
    switch (result.outcome) {
      case "deferred":
        metrics.deferred.inc({ reason: result.reason });
        return;
      case "held":
        metrics.held.inc();
        return;
      case "skipped":
        metrics.skipped.inc({ reason: result.reason });
        return;
      case "integration_inactive":
        metrics.attempts.inc({
          event: result.event,
          outcome: "integration_inactive",
          error_kind: "integration_inactive",
        });
        metrics.deadLetters.inc({ event: result.event });
        return;
      default:
        metrics.attempts.inc({ event: result.event, outcome: result.outcome, error_kind: result.errorKind ?? "none" });
        metrics.attemptDuration.observe(result.durationMs / 1000);
        metrics.integrationAttempts.inc({ integration_id: result.integrationId, outcome: result.outcome });
        metrics.integrationAttemptDuration.observe({ integration_id: result.integrationId }, result.durationMs / 1000);
        if (result.outcome === "failed") metrics.deadLetters.inc({ event: result.event });
        if (result.outcome !== "delivered" && result.errorKind !== null)
          await checkEndpointHealth(result.integrationId, {
            statusCode: result.statusCode,
            errorKind: result.errorKind,
          });
    }
  }

  /**
   * The signing secret did not open: nothing sent, the row says so (secret_unavailable); the job fails and is retried.
   * Counted by reason only (unknown_key, rejected, malformed): no key id, no integration.
   */
  function countSecretFailure(error: unknown): never {
    if (error instanceof SecretUnreadableError) metrics.secretUnavailable.inc({ reason: error.reason });
    throw error;
  }

  // One handler per job of the webhook queue (the compiler refuses a catalogue job without one).
  const handlers: JobHandlers<typeof QUEUES.webhooks> = {
    "webhook.deliver": async (payload, job) => {
      const result = await processDeliveryAttempt(processDeps, payload).catch(countSecretFailure);
      if (result.outcome === "deferred") {
        // Back to the delayed set: no worker slot held, no BullMQ or delivery attempt spent. A job that did not
        // name its integration names it from now on, so its next deferrals cost no query.
        metrics.deferred.inc({ reason: result.reason });
        return job.defer(
          result.retryAt,
          payload.integrationId === undefined ? { ...payload, integrationId: result.integrationId } : undefined,
        );
      }
      // Ordered delivery (`held`): the job ends; the row waits in PostgreSQL until the earlier delivery settles and
      // releases it (or its re-check time, for the sweep).
      await observe(result);
      return result.outcome;
    },
    "webhook.deliver-first-attempts": async (payload, job) => {
      const batch = await processFirstAttempts(processDeps, payload).catch(countSecretFailure);
      for (const outcome of batch.outcomes) await observe(outcome);
      if (batch.kind === "deferred") {
        // What is left waits in the same job (its id is what the sweep looks for), delayed, holding no slot.
        metrics.deferred.inc({ reason: batch.reason });
        const { integrationId, deliveryIds, traceparents } = batch.remaining;
        return job.defer(batch.retryAt, {
          integrationId,
          deliveryIds: [...deliveryIds],
          ...(traceparents ? { traceparents: [...traceparents] } : {}),
        });
      }
      return outcomeSummary(batch.outcomes);
    },
  };

  const worker = new Worker(QUEUES.webhooks, createProcessor(QUEUES.webhooks, handlers), {
    connection: workerRedis,
    prefix: config.REDIS_KEY_PREFIX,
    concurrency: config.DISPATCHER_CONCURRENCY,
    autorun: false,
    // A killed dispatcher's attempt is re-run by another worker once its lock expires (the attempt upsert
    // and the conditional claim make the re-run safe).
    lockDuration: config.DISPATCHER_LOCK_DURATION_MS,
    stalledInterval: config.DISPATCHER_STALLED_INTERVAL_MS,
    maxStalledCount: config.DISPATCHER_MAX_STALLED_COUNT,
  });
  worker.on("error", (error: Error) => logger.warn("webhook worker error", { error: error.message }));
  worker.on("failed", (job, error: Error) => {
    // A dependency outage is retried by BullMQ (job backoff) without spending a delivery attempt.
    const retrying = job !== undefined && job.attemptsMade < (job.opts.attempts ?? 1);
    logger[retrying ? "warn" : "error"](
      retrying
        ? "delivery job failed; BullMQ retries it"
        : "delivery job failed for good; the sweep re-queues it if still due",
      {
        jobId: job?.id,
        dependencyUnavailable: isDatabaseUnavailable(error),
        error: error.message,
      },
    );
  });
  worker.on("stalled", (jobId: string) => logger.warn("stalled delivery job recovered", { jobId }));

  const server = createProbeServer({ db, redis: [workerRedis, queueRedis], registry: metrics.registry, logger });
  let port = 0;
  let running: Promise<void> | null = null;
  let stopping: Promise<void> | null = null;

  // Replays of deliveries by time range (issue 21): their own queue and worker; their attempts come through this one.
  const replays = createReplayRunner({ config, db, queue, redis: queueRedis, logger });

  // Housekeeping, one registry: the sweep, expired keys, retention (docs/decisions.md, "Retention"), the cost ledger's
  // rollup and the replays' sweep; each with its interval, a deadline, and its runs counted.
  const housekeeping = createPeriodicTasks({ logger, registry: metrics.registry });
  const sweep = housekeeping.add(deliverySweep({ db, queue, redis: queueRedis, logger, metrics, config }));
  housekeeping.add(expiredKeysPurge({ db, logger, config }));
  housekeeping.add(retentionPurge({ db, logger, metrics, config }));
  housekeeping.add(pricingRollup({ db, logger, config }));
  housekeeping.add(replays.sweep);

  async function start(): Promise<void> {
    server.listen(config.DISPATCHER_PORT, config.DISPATCHER_HOST);
    await once(server, "listening");
    port = (server.address() as AddressInfo).port;
    running = worker.run().catch((error: unknown) => {
      logger.error("webhook worker stopped with an error", { error: (error as Error).message });
    });
    housekeeping.start();
    replays.start();
    logger.info("dispatcher started", {
      probes: `http://${config.DISPATCHER_HOST}:${port}`,
      concurrency: config.DISPATCHER_CONCURRENCY,
      prefix: config.REDIS_KEY_PREFIX,
    });
  }

  async function stop(): Promise<void> {
    stopping ??= (async () => {
      // The worker stops taking jobs first, at once (BullMQ marks it closing and fetches nothing more); then
      // waits for the attempts in flight (each bounded by WEBHOOK_TIMEOUT_MS). Without Redis nothing can be
      // acknowledged anyway, so close at once: BullMQ remembers the first close() call, and a graceful one
      // would keep its connections reconnecting forever. Stalled-job recovery hands unfinished jobs on.
      const redisUp = workerRedis.status === "ready";
      const closing = redisUp
        ? withDeadline(worker.close(), config.WEBHOOK_TIMEOUT_MS + 5_000)
        : Promise.resolve(false);
      // No new housekeeping runs; the ones in progress finish while the queues are still open.
      await withDeadline(housekeeping.stop(), 5_000);
      const drained = redisUp && (await closing);
      if (!drained) {
        logger.warn(
          redisUp ? "worker did not stop in time; connections closed" : "Redis unavailable; worker closed at once",
        );
        if (!redisUp) await withDeadline(worker.close(true), 2_000);
        workerRedis.disconnect();
      }
      await withDeadline(running ?? Promise.resolve(), 2_000);
      await replays.stop();
      await withDeadline(queue.close(), 2_000);
      sender.close();
      await Promise.all([closeRedis(workerRedis), closeRedis(queueRedis)]);
      if (ownsDb) await db.$disconnect();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      logger.info("dispatcher stopped");
    })();
    return stopping;
  }

  return {
    start,
    stop,
    reconcileNow: () => sweep.run(),
    get port() {
      return port;
    },
  };
}
