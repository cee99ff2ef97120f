import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { Worker } from "bullmq";
import { createAccountDirectory } from "@gw/core/accounts";
import {
  campaignsToWake,
  runCampaignTick,
  runningCampaignsProgress,
  type CampaignRunnerDeps,
} from "@gw/core/campaigns";
import { createDb, isDatabaseUnavailable, type Db } from "@gw/db";
import {
  QUEUES,
  createCampaignQueue,
  createProcessor,
  createRedis,
  createWebhookQueue,
  wakeCampaigns,
  type JobHandlers,
  closeRedis,
  createPeriodicTasks,
  createProbeServer,
  withDeadline,
} from "@gw/jobs";
import type { Logger } from "@gw/logger";
import {
  createPacing,
  createPacingMetrics,
  createProvider,
  createSendDeps,
  createTemplateCatalogue,
  instrumentProvider,
  registerGraphVersionGauge,
} from "@gw/wiring";
import type { CampaignWorkerConfig } from "./config.ts";
import { createMetrics } from "./metrics.ts";

const IDEMPOTENCY_POOL_SIZE = 4;
/** A share of a campaign this process is already ticking is put back for this long (for another process). */
const SHARE_BUSY_RETRY_MS = 1_000;

export interface CampaignWorkerDeps {
  logger: Logger;
  /** An existing client; when absent the worker opens (and closes) its own from DATABASE_URL. */
  db?: Db;
}

export interface CampaignWorker {
  /** Starts the probe server, the BullMQ worker and the sweep. */
  start(): Promise<void>;
  /** Stops taking campaigns; ticks in progress finish their sends in flight and hand their campaign back. */
  stop(): Promise<void>;
  /** The probe server's port, once started (useful with CAMPAIGN_WORKER_PORT=0). */
  readonly port: number;
  /** One sweep now (also what the interval does): how many campaigns were woken; null when it failed. */
  sweepNow(): Promise<number | null>;
}

export function createCampaignWorker(config: CampaignWorkerConfig, deps: CampaignWorkerDeps): CampaignWorker {
  const { logger } = deps;
  const ownsDb = !deps.db;
  const db =
    deps.db ??
    createDb({
      url: config.DATABASE_URL,
      poolSize: config.DATABASE_POOL_SIZE,
      // The directory follows number changes by LISTEN: a session straight to PostgreSQL behind PgBouncer.
      ...(config.DATABASE_LISTEN_URL ? { listenUrl: config.DATABASE_LISTEN_URL } : {}),
    });
  // The Idempotency-Key statements get connections of their own: the provider-call mark stands between a send's
  // turn and its provider call, so it must not queue behind other sends' commits (the send would leave late and
  // bunch with the next ones).
  const keysDb = createDb({ url: config.DATABASE_URL, poolSize: IDEMPOTENCY_POOL_SIZE });
  // Separate connections: the worker's blocks (and must never give up on a command), the others fail fast.
  const workerRedis = createRedis(config, "worker");
  const redis = createRedis(config, "request");
  for (const [role, connection] of [
    ["worker", workerRedis],
    ["request", redis],
  ] as const) {
    connection.on("error", (error: Error) => logger.warn("Redis connection error", { role, error: error.message }));
  }
  const prefix = config.REDIS_KEY_PREFIX;
  const queue = createCampaignQueue(redis, prefix);
  queue.on("error", (error: Error) => logger.warn("campaign queue error", { error: error.message }));
  // The outbox queues the webhook deliveries of statuses that arrived before a send was recorded.
  const webhookQueue = createWebhookQueue(redis, prefix);
  webhookQueue.on("error", (error: Error) => logger.warn("webhook queue error", { error: error.message }));
  const metrics = createMetrics(queue, { runningCampaigns: () => runningCampaignsProgress({ db }) });

  const meta = instrumentProvider(createProvider(config, logger), metrics.registry);
  registerGraphVersionGauge(metrics.registry, config.META_API_VERSION);
  // Follows number changes (a rate Meta raised, a WABA blocked) as they commit: started and stopped with the worker.
  const directory = createAccountDirectory(db, {
    apiKeyTtlMs: 0,
    unknownKeyTtlMs: 0,
    numberTtlMs: config.NUMBER_CACHE_TTL_MS,
    maxEntries: 10_000,
  });
  let stopFollowingNumbers: (() => Promise<void>) | null = null;
  const send = createSendDeps(config, {
    service: "campaign-worker",
    db,
    keysDb,
    redis,
    webhookQueue,
    meta,
    templates: createTemplateCatalogue(config, { redis, meta, logger }),
    directory,
    throughput: createPacing(config, {
      redis,
      observer: createPacingMetrics(metrics.registry),
      policy: {
        campaignMaxQueueMs: config.CAMPAIGN_TURN_QUEUE_MS,
        campaignMaxWaitMs: config.CAMPAIGN_TURN_MAX_WAIT_MS,
      },
    }),
    logger,
    // A live send has reserved its key, waited for its turn and called the provider within this; a re-drive
    // (CAMPAIGN_REDRIVE_AFTER_MS after the claim, which came first) then finds the key stale.
    reservationStaleAfterMs: config.META_TIMEOUT_MS + config.CAMPAIGN_TURN_MAX_WAIT_MS + 2_000,
  });
  const runner: CampaignRunnerDeps = {
    db,
    logger,
    settings: {
      concurrency: config.CAMPAIGN_SEND_CONCURRENCY,
      redriveAfterMs: config.CAMPAIGN_REDRIVE_AFTER_MS,
      tickBudgetMs: config.CAMPAIGN_TICK_BUDGET_MS,
      maxAttempts: config.CAMPAIGN_MAX_ATTEMPTS,
      statusPollMs: 500,
    },
    send,
    // The recipients this process claims name its lease: once it runs out (the process killed), any tick re-drives them.
    owner: send.lease.owner,
  };

  // Aborted on stop: ticks claim nothing more and hand their campaign back once their sends in flight end.
  const stopping = new AbortController();
  // Every share of a running campaign gets its job, so other worker processes join it (a no-op for shares that
  // have theirs). Never fails the tick: the sweep does the same.
  const wakeShares = (campaignId: string) =>
    config.CAMPAIGN_SHARES > 1
      ? wakeCampaigns(queue, [{ campaignId }], { shares: config.CAMPAIGN_SHARES }).catch((error: unknown) =>
          logger.warn("could not wake a campaign's shares", { campaignId, error: (error as Error).message }),
        )
      : Promise.resolve();
  // The campaigns this process is ticking: a second share of one of them is left to another process.
  const ticking = new Set<string>();
  const handlers: JobHandlers<typeof QUEUES.campaigns> = {
    "campaign.tick": async (payload, job) => {
      if (ticking.has(payload.campaignId)) {
        metrics.ticks.inc({ result: "share_busy" });
        return job.defer(new Date(Date.now() + SHARE_BUSY_RETRY_MS));
      }
      ticking.add(payload.campaignId);
      let outcome;
      try {
        outcome = await runCampaignTick(runner, {
          campaignId: payload.campaignId,
          signal: stopping.signal,
          onRunning: () => void wakeShares(payload.campaignId),
        });
      } finally {
        ticking.delete(payload.campaignId);
      }
      metrics.sent.inc(outcome.sent);
      if (outcome.kind === "again") {
        metrics.ticks.inc({ result: "again" });
        // The same job, later: the campaign keeps its one job id, and no BullMQ attempt is spent.
        return job.defer(outcome.at);
      }
      metrics.ticks.inc({ result: outcome.status });
      return outcome.status;
    },
  };
  const worker = new Worker(QUEUES.campaigns, createProcessor(QUEUES.campaigns, handlers), {
    connection: workerRedis,
    prefix,
    concurrency: config.CAMPAIGN_WORKER_CONCURRENCY,
    autorun: false,
    // A killed worker's tick is taken over once its lock expires; its recipients do not wait for that: any other
    // share's tick re-drives them (same key, so nothing is sent twice) as soon as its lease runs out.
    lockDuration: config.CAMPAIGN_LOCK_DURATION_MS,
    stalledInterval: config.CAMPAIGN_STALLED_INTERVAL_MS,
    maxStalledCount: 1_000,
  });
  worker.on("error", (error: Error) => logger.warn("campaign worker error", { error: error.message }));
  worker.on("failed", (job, error: Error) => {
    metrics.ticks.inc({ result: "failed" });
    logger.warn("campaign tick failed; retried, and the sweep wakes the campaign again", {
      jobId: job?.id,
      dependencyUnavailable: isDatabaseUnavailable(error),
      error: error.message,
    });
  });
  worker.on("stalled", (jobId: string) => logger.warn("stalled campaign tick taken over", { jobId }));

  // PostgreSQL says which campaigns should be ticking; Redis only holds their jobs. One that has its job keeps it.
  const periodic = createPeriodicTasks({ logger, registry: metrics.registry });
  const sweep = periodic.add({
    name: "campaign_sweep",
    intervalMs: config.CAMPAIGN_SWEEP_INTERVAL_MS,
    failure: "campaign sweep failed; trying again next cycle",
    async run() {
      if (redis.status !== "ready") return 0;
      const due = await campaignsToWake({ db });
      await wakeCampaigns(queue, due, { shares: config.CAMPAIGN_SHARES });
      return due.length;
    },
  });

  const server = createProbeServer({ db, redis: [workerRedis, redis], registry: metrics.registry, logger });
  let port = 0;
  let running: Promise<void> | null = null;
  let stopped: Promise<void> | null = null;

  async function start(): Promise<void> {
    server.listen(config.CAMPAIGN_WORKER_PORT, config.CAMPAIGN_WORKER_HOST);
    await once(server, "listening");
    port = (server.address() as AddressInfo).port;
    // Before the first tick: its claims and reservations name this process, and once the lease has run out (the
    // worker killed) its recipients are re-driven and their keys settled at once.
    send.lease.start();
    stopFollowingNumbers = directory.followRevocations();
    running = worker.run().catch((error: unknown) => {
      logger.error("campaign worker stopped with an error", { error: (error as Error).message });
    });
    periodic.start();
    logger.info("campaign worker started", {
      probes: `http://${config.CAMPAIGN_WORKER_HOST}:${port}`,
      concurrency: config.CAMPAIGN_WORKER_CONCURRENCY,
      prefix,
    });
  }

  async function stop(): Promise<void> {
    stopped ??= (async () => {
      stopping.abort();
      // The worker takes no new tick from now on (BullMQ marks it closing at once), while the sweep stops.
      // Ticks end soon after the abort (their sends in flight finish: at most a turn wait plus a provider call).
      const redisUp = workerRedis.status === "ready";
      const bound = config.META_TIMEOUT_MS + config.CAMPAIGN_TURN_MAX_WAIT_MS + 5_000;
      const closing = redisUp ? withDeadline(worker.close(), bound) : Promise.resolve(false);
      await withDeadline(periodic.stop(), 5_000);
      const drained = redisUp && (await closing);
      if (!drained) {
        logger.warn(
          redisUp
            ? "campaign ticks did not stop in time; connections closed"
            : "Redis unavailable; worker closed at once",
        );
        if (!redisUp) await withDeadline(worker.close(true), 2_000);
        workerRedis.disconnect();
      }
      await withDeadline(running ?? Promise.resolve(), 2_000);
      await withDeadline(Promise.all([queue.close(), webhookQueue.close()]), 2_000);
      await Promise.all([closeRedis(workerRedis), closeRedis(redis)]);
      await withDeadline(stopFollowingNumbers?.() ?? Promise.resolve(), 2_000);
      // The ticks are over: a key this process still holds (a send cut short) is settleable at once by a re-drive.
      await withDeadline(send.lease.stop(), 2_000);
      if (ownsDb) await db.$disconnect();
      await keysDb.$disconnect();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      logger.info("campaign worker stopped");
    })();
    return stopped;
  }

  return {
    start,
    stop,
    sweepNow: () => sweep.run(),
    get port() {
      return port;
    },
  };
}
