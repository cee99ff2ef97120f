import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { UnrecoverableError, Worker, type Job } from "bullmq";
import { createDb, type Db } from "@gw/db";
import {
  createRedis,
  createWebhookQueue,
  deliverWebhookJob,
  QUEUES,
  type DeliverWebhookPayload,
  type Redis,
} from "@gw/jobs";
import type { Logger } from "@gw/logger";
import { purgeExpiredIdempotencyKeys } from "@gw/core";
import {
  createWebhookSender,
  processDeliveryAttempt,
  reconcileDeliveries,
  type ReconcileResult,
} from "@gw/core/deliveries";
import type { DispatcherConfig } from "./config.ts";
import { createProbeServer } from "./http.ts";
import { createMetrics } from "./metrics.ts";

export interface DispatcherDeps {
  logger: Logger;
  /** An existing client; when absent the dispatcher opens (and closes) its own from DATABASE_URL. */
  db?: Db;
}

export interface Dispatcher {
  /** Starts the probe server, the worker and the reconciler. */
  start(): Promise<void>;
  /** Stops taking jobs, waits for the attempts in flight, then closes Redis, Postgres and the probe server. */
  stop(): Promise<void>;
  /** The probe server's port, once started (useful with DISPATCHER_PORT=0). */
  readonly port: number;
  /** One reconciler run now (also what the interval does); null when it failed. */
  reconcileNow(): Promise<ReconcileResult | null>;
}

export function createDispatcher(config: DispatcherConfig, deps: DispatcherDeps): Dispatcher {
  const { logger } = deps;
  const ownsDb = !deps.db;
  const db = deps.db ?? createDb({ url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
  // Separate connections: the worker's blocks (and must never give up on a command), the producer's fails fast.
  const workerRedis = createRedis(config.REDIS_URL, "worker");
  const queueRedis = createRedis(config.REDIS_URL, "request");
  for (const [role, redis] of [
    ["worker", workerRedis],
    ["queue", queueRedis],
  ] as const) {
    redis.on("error", (error: Error) => logger.warn("erro de conexão com o Redis", { role, error: error.message }));
  }
  const queue = createWebhookQueue(queueRedis, config.REDIS_KEY_PREFIX);
  queue.on("error", (error: Error) => logger.warn("erro na fila de webhooks", { error: error.message }));
  const sender = createWebhookSender({
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    maxSockets: config.DISPATCHER_MAX_SOCKETS,
    responseBodyLimit: config.WEBHOOK_RESPONSE_BODY_LIMIT,
  });
  const metrics = createMetrics(queue);
  const processDeps = {
    db,
    queue,
    sender,
    logger,
    settings: {
      scheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
      jitter: config.WEBHOOK_RETRY_JITTER,
      userAgent: config.USER_AGENT,
    },
  };

  const processor = async (job: Job<DeliverWebhookPayload, string, string>): Promise<string> => {
    if (job.name !== deliverWebhookJob.name) throw new UnrecoverableError(`job desconhecido: ${job.name}`);
    const payload = deliverWebhookJob.payload.safeParse(job.data);
    if (!payload.success) throw new UnrecoverableError("payload de entrega inválido");
    const result = await processDeliveryAttempt(processDeps, payload.data);
    if (result.outcome === "skipped") {
      metrics.skipped.inc({ reason: result.reason });
    } else if (result.outcome === "integration_inactive") {
      metrics.attempts.inc({
        event: result.event,
        outcome: "integration_inactive",
        error_kind: "integration_inactive",
      });
      metrics.deadLetters.inc({ event: result.event });
    } else {
      metrics.attempts.inc({ event: result.event, outcome: result.outcome, error_kind: result.errorKind ?? "none" });
      metrics.attemptDuration.observe(result.durationMs / 1000);
      if (result.outcome === "failed") metrics.deadLetters.inc({ event: result.event });
    }
    return result.outcome;
  };

  const worker = new Worker<DeliverWebhookPayload, string, string>(QUEUES.webhooks, processor, {
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
  worker.on("error", (error: Error) => logger.warn("erro no worker de webhooks", { error: error.message }));
  worker.on("failed", (job, error: Error) => {
    logger.error("job de entrega falhou; o reconciliador o recoloca se a entrega ainda estiver pendente", {
      jobId: job?.id,
      error: error.message,
    });
  });
  worker.on("stalled", (jobId: string) => logger.warn("job de entrega travado recuperado", { jobId }));

  const server = createProbeServer({ db, redis: [workerRedis, queueRedis], registry: metrics.registry, logger });

  let port = 0;
  let cursor: bigint | null = null;
  let running: Promise<void> | null = null;
  let stopping: Promise<void> | null = null;

  const reconciler = periodicTask(
    async (): Promise<ReconcileResult> => {
      const result = await reconcileDeliveries(
        { db, queue, logger, attemptTimeoutMs: config.WEBHOOK_TIMEOUT_MS },
        { graceMs: config.RECONCILE_GRACE_MS, batchSize: config.RECONCILE_BATCH_SIZE, afterId: cursor ?? 0n },
      );
      cursor = result.nextAfterId;
      metrics.requeued.inc(result.requeued);
      return result;
    },
    (error) =>
      logger.warn("reconciliação de entregas falhou; nova tentativa no próximo ciclo", { error: error.message }),
  );

  // Idempotency keys past their TTL; any dispatcher pod may run it (the delete is idempotent).
  const idempotencyPurge = periodicTask(
    async () => {
      const removed = await purgeExpiredIdempotencyKeys(db);
      if (removed > 0) logger.info("chaves de idempotência expiradas removidas", { removed });
    },
    (error) =>
      logger.warn("limpeza de chaves de idempotência falhou; nova tentativa no próximo ciclo", {
        error: error.message,
      }),
  );

  async function start(): Promise<void> {
    server.listen(config.DISPATCHER_PORT, config.DISPATCHER_HOST);
    await once(server, "listening");
    port = (server.address() as AddressInfo).port;
    running = worker.run().catch((error: unknown) => {
      logger.error("o worker de webhooks parou com erro", { error: (error as Error).message });
    });
    reconciler.start(config.RECONCILE_INTERVAL_MS);
    idempotencyPurge.start(config.IDEMPOTENCY_PURGE_INTERVAL_MS);
    logger.info("dispatcher iniciado", {
      probes: `http://${config.DISPATCHER_HOST}:${port}`,
      concurrency: config.DISPATCHER_CONCURRENCY,
      prefix: config.REDIS_KEY_PREFIX,
    });
  }

  async function stop(): Promise<void> {
    stopping ??= (async () => {
      // No new maintenance runs; the ones in progress finish while the queue is still open.
      await Promise.all([reconciler.stop(), idempotencyPurge.stop()]);
      // Waits for the attempts in flight (each bounded by WEBHOOK_TIMEOUT_MS). Without Redis nothing can be
      // acknowledged anyway, so close at once: BullMQ remembers the first close() call, and a graceful one
      // would keep its connections reconnecting forever. Stalled-job recovery hands unfinished jobs on.
      const redisUp = workerRedis.status === "ready";
      const drained = redisUp && (await withDeadline(worker.close(), config.WEBHOOK_TIMEOUT_MS + 5_000));
      if (!drained) {
        logger.warn(
          redisUp
            ? "worker não encerrou a tempo; conexões fechadas à força"
            : "Redis indisponível; worker fechado à força",
        );
        if (!redisUp) await withDeadline(worker.close(true), 2_000);
        workerRedis.disconnect();
      }
      await withDeadline(running ?? Promise.resolve(), 2_000);
      await withDeadline(queue.close(), 2_000);
      sender.close();
      await Promise.all([closeRedis(workerRedis), closeRedis(queueRedis)]);
      if (ownsDb) await db.$disconnect();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      logger.info("dispatcher encerrado");
    })();
    return stopping;
  }

  return {
    start,
    stop,
    reconcileNow: reconciler.run,
    get port() {
      return port;
    },
  };
}

/**
 * A maintenance task run now and then every `intervalMs` once started, never overlapping itself: `run()` while
 * a run is in progress joins it. A failure is reported and resolves to null; the next cycle tries again.
 */
function periodicTask<T>(task: () => Promise<T>, onError: (error: Error) => void) {
  let inFlight: Promise<T | null> | null = null;
  let timer: NodeJS.Timeout | undefined;
  const run = (): Promise<T | null> =>
    (inFlight ??= task()
      .catch((error: unknown) => {
        onError(error as Error);
        return null;
      })
      .finally(() => {
        inFlight = null;
      }));
  return {
    run,
    start(intervalMs: number): void {
      void run();
      timer = setInterval(() => void run(), intervalMs);
    },
    /** Stops the cycle and waits for a run in progress. */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      await inFlight;
    },
  };
}

async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === "end") return;
  const quit = await withDeadline(
    redis.quit().then(() => undefined),
    1_000,
  );
  if (!quit) redis.disconnect();
}

/** Resolves true when `promise` settled in time, false otherwise (a rejection counts as settled). */
async function withDeadline(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      deadline,
    ]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}
