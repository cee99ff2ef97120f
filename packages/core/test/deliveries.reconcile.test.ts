import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { Worker } from "bullmq";
import type { Db } from "@gw/db";
import {
  createRedis,
  createWebhookQueue,
  deliverWebhookJob,
  enqueueDeliveryAttempt,
  QUEUES,
  type Redis,
  type WebhookQueue,
} from "@gw/jobs";
import { silentLogger, testEnv } from "@gw/testkit";
import { reconcileDeliveries, type ReconcileDeps } from "../src/deliveries/index.ts";
import { createDelivery, createFixture, isolatedDatabase, waitFor, type Fixture } from "./deliveries.support.ts";

// The reconciler scans the whole deliveries table: a database of its own keeps other test files' rows out.
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let db: Db;
let redis: Redis;
let queue: WebhookQueue;
let prefix: string;
let redisUrl: string;
let deps: ReconcileDeps;
let fixture: Fixture;

const TIMEOUT_MS = 10_000;
const GRACE_MS = 60_000;

beforeAll(async () => {
  database = await isolatedDatabase();
  db = database.db;
  const env = testEnv();
  prefix = env.redisPrefix;
  redisUrl = env.redisUrl;
  redis = createRedis(env.redisUrl);
  queue = createWebhookQueue(redis, prefix);
  deps = { db, queue, logger: silentLogger, attemptTimeoutMs: TIMEOUT_MS };
  fixture = await createFixture(db, "http://127.0.0.1:9/x");
});

beforeEach(async () => {
  await db.delivery.deleteMany({});
  await queue.obliterate({ force: true });
});

afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
  await database.drop();
});

const ago = (ms: number) => new Date(Date.now() - ms);

async function delivery(data: {
  status: string;
  attemptCount?: number;
  nextAttemptAt?: Date | null;
  updatedAt?: Date;
  createdAt?: Date;
}) {
  const { id } = await createDelivery(db, fixture);
  await db.delivery.update({ where: { id }, data });
  return id;
}

async function jobState(id: bigint, attempt: number): Promise<string | undefined> {
  return (await queue.getJob(deliverWebhookJob.jobId(id, attempt)))?.getState();
}

describe("reconcileDeliveries", () => {
  it("queues due and stuck deliveries that have no job, and leaves the rest alone", async () => {
    const duePending = await delivery({ status: "pending", attemptCount: 2, nextAttemptAt: ago(GRACE_MS + 5_000) });
    const neverScheduled = await delivery({ status: "pending", nextAttemptAt: null, createdAt: ago(GRACE_MS + 5_000) });
    const stuck = await delivery({
      status: "delivering",
      attemptCount: 4,
      updatedAt: ago(TIMEOUT_MS + GRACE_MS + 5_000),
    });
    // Within the grace period the producer (or the dispatcher after its commit) is still expected to enqueue.
    const justDue = await delivery({ status: "pending", nextAttemptAt: ago(1_000) });
    const future = await delivery({
      status: "pending",
      attemptCount: 1,
      nextAttemptAt: new Date(Date.now() + 3_600_000),
    });
    const inFlight = await delivery({ status: "delivering", updatedAt: ago(1_000) });
    const done = await delivery({ status: "delivered", attemptCount: 1 });
    const dead = await delivery({ status: "failed", attemptCount: 7 });

    const result = await reconcileDeliveries(deps, { graceMs: GRACE_MS });

    expect(result).toEqual({ scanned: 3, requeued: 3, nextAfterId: null });
    expect(await jobState(duePending, 3)).toBe("waiting");
    expect(await jobState(neverScheduled, 1)).toBe("waiting");
    expect(await jobState(stuck, 5)).toBe("waiting");
    for (const [id, attempt] of [
      [justDue, 1],
      [future, 2],
      [inFlight, 1],
      [done, 2],
      [dead, 8],
    ] as const) {
      expect(await jobState(id, attempt)).toBeUndefined();
    }

    // Idempotent: the jobs are live now, a second run adds nothing.
    expect(await reconcileDeliveries(deps, { graceMs: GRACE_MS })).toMatchObject({ scanned: 3, requeued: 0 });
  });

  it("leaves a live delayed job alone but replaces a finished one whose row still needs that attempt", async () => {
    const delayed = await delivery({ status: "pending", attemptCount: 1, nextAttemptAt: ago(GRACE_MS + 1_000) });
    await enqueueDeliveryAttempt(queue, delayed, 2, 3_600_000);
    const orphan = await delivery({ status: "delivering", updatedAt: ago(TIMEOUT_MS + GRACE_MS + 1_000) });
    await enqueueDeliveryAttempt(queue, orphan, 1);
    // A worker fails the orphan's job without touching the row (e.g. Postgres was down at commit time).
    const connection = createRedis(redisUrl, "worker");
    const worker = new Worker(QUEUES.webhooks, () => Promise.reject(new Error("postgres fora do ar")), {
      connection,
      prefix,
    });
    try {
      await waitFor("job falhar", async () => (await jobState(orphan, 1)) === "failed");
    } finally {
      await worker.close();
      connection.disconnect();
    }

    const result = await reconcileDeliveries(deps, { graceMs: GRACE_MS });

    expect(result).toMatchObject({ scanned: 2, requeued: 1 });
    expect(await jobState(delayed, 2)).toBe("delayed");
    expect(await jobState(orphan, 1)).toBe("waiting");
  });

  it("pages through the table in bounded batches and wraps around", async () => {
    const ids: bigint[] = [];
    for (let i = 0; i < 5; i++) ids.push(await delivery({ status: "pending", nextAttemptAt: ago(GRACE_MS + 1_000) }));

    const first = await reconcileDeliveries(deps, { graceMs: GRACE_MS, batchSize: 2 });
    expect(first).toEqual({ scanned: 2, requeued: 2, nextAfterId: ids[1] });
    const second = await reconcileDeliveries(deps, {
      graceMs: GRACE_MS,
      batchSize: 2,
      afterId: first.nextAfterId ?? 0n,
    });
    expect(second).toEqual({ scanned: 2, requeued: 2, nextAfterId: ids[3] });
    const third = await reconcileDeliveries(deps, {
      graceMs: GRACE_MS,
      batchSize: 2,
      afterId: second.nextAfterId ?? 0n,
    });
    expect(third).toEqual({ scanned: 1, requeued: 1, nextAfterId: null });
    for (const id of ids) expect(await jobState(id, 1)).toBe("waiting");
  });
});
