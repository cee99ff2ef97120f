import { Worker } from "bullmq";
import type { Db } from "@gw/db";
import { advanceDeliveryReplay, unfinishedReplays } from "@gw/core/deliveries";
import {
  QUEUES,
  closeRedis,
  createProcessor,
  createRedis,
  createReplayQueue,
  wakeReplays,
  withDeadline,
  type JobHandlers,
  type PeriodicTaskSpec,
  type Redis,
  type WebhookQueue,
} from "@gw/jobs";
import type { Logger } from "@gw/logger";
import type { DispatcherConfig } from "./config.ts";

export interface ReplayRunner {
  start(): void;
  stop(): Promise<void>;
  /** The sweep, for the dispatcher's periodic tasks: each run says how many unfinished replays were given a job. */
  sweep: PeriodicTaskSpec<number>;
}

/**
 * Replays of deliveries by time range (issue 21): a worker of the `delivery-replays` queue, one replay at a time per
 * pod, each run one batch (`advanceDeliveryReplay`) and then the job defers itself, so replays of several accounts
 * take turns; and a sweep that gives a job to every replay PostgreSQL says is not completed (Redis flushed, a crash
 * before its first run). The batches' attempts go to the webhook queue like any retry's: the same worker, fairness
 * gate, signature and SSRF guard as every delivery.
 */
export function createReplayRunner(deps: {
  config: DispatcherConfig;
  db: Db;
  /** The webhook queue the replayed attempts go to. */
  queue: WebhookQueue;
  /** The dispatcher's producer connection (fails fast). */
  redis: Redis;
  logger: Logger;
}): ReplayRunner {
  const { config, db, queue, logger } = deps;
  const workerRedis = createRedis(config, "worker");
  workerRedis.on("error", (error: Error) =>
    logger.warn("Redis connection error", { role: "replay-worker", error: error.message }),
  );
  const replayQueue = createReplayQueue(deps.redis, config.REDIS_KEY_PREFIX);
  replayQueue.on("error", (error: Error) => logger.warn("replay queue error", { error: error.message }));
  const retention = {
    deliveredDays: config.DELIVERIES_RETENTION_DAYS,
    failedDays: config.FAILED_DELIVERIES_RETENTION_DAYS,
  };

  const handlers: JobHandlers<typeof QUEUES.replays> = {
    "deliveries.replay": async (payload, job) => {
      const outcome = await advanceDeliveryReplay(
        { db, queue, logger },
        {
          replayId: payload.replayId,
          batchSize: config.REPLAY_BATCH_SIZE,
          retention,
          maxQueued: config.DISPATCHER_MAX_QUEUED_JOBS,
        },
      );
      // The same job, for the next batch: the slot is free for another replay meanwhile, no BullMQ attempt spent.
      if (outcome.kind === "again") return job.defer(new Date());
      if (outcome.kind === "wait") return job.defer(outcome.at);
      if (outcome.kind === "completed") logger.info("replay completed", { replayId: payload.replayId });
      return outcome.kind;
    },
  };
  const worker = new Worker(QUEUES.replays, createProcessor(QUEUES.replays, handlers), {
    connection: workerRedis,
    prefix: config.REDIS_KEY_PREFIX,
    concurrency: 1,
    autorun: false,
    // A killed dispatcher's batch either committed (its place is on the replay row) or not: the re-run is safe.
    lockDuration: config.DISPATCHER_LOCK_DURATION_MS,
    stalledInterval: config.DISPATCHER_STALLED_INTERVAL_MS,
    maxStalledCount: 1_000,
  });
  worker.on("error", (error: Error) => logger.warn("replay worker error", { error: error.message }));
  worker.on("failed", (job, error: Error) =>
    logger.warn("replay batch failed; retried, and the sweep wakes the replay again", {
      jobId: job?.id,
      error: error.message,
    }),
  );

  // One that has its job keeps it.
  const sweep: PeriodicTaskSpec<number> = {
    name: "replay_sweep",
    intervalMs: Math.max(config.RECONCILE_INTERVAL_MS, 1_000),
    failure: "replay sweep failed; trying again next cycle",
    async run() {
      if (deps.redis.status !== "ready") return 0;
      const ids = await unfinishedReplays({ db });
      await wakeReplays(replayQueue, ids);
      return ids.length;
    },
  };

  let running: Promise<void> | null = null;
  return {
    start() {
      running = worker.run().catch((error: unknown) => {
        logger.error("replay worker stopped with an error", { error: (error as Error).message });
      });
    },
    async stop() {
      const closed = workerRedis.status === "ready" && (await withDeadline(worker.close(), 10_000));
      if (!closed) {
        await withDeadline(worker.close(true), 2_000);
        workerRedis.disconnect();
      }
      await withDeadline(running ?? Promise.resolve(), 2_000);
      await withDeadline(replayQueue.close(), 2_000);
      await closeRedis(workerRedis);
    },
    sweep,
  };
}
