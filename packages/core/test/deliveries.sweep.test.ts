import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { UnrecoverableError, Worker } from "bullmq";
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
import {
  createDelivery,
  createFixture,
  eventually,
  isolatedDatabase,
  silentLogger,
  testEnv,
  type Fixture,
} from "@gw/testkit";
import { createDeliveryScheduler, sweepDeliveries, type SweepDeps } from "../src/deliveries/index.ts";

// The sweep reads the whole deliveries table: a database of its own keeps other test files' rows out.
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let db: Db;
let redis: Redis;
let queue: WebhookQueue;
let prefix: string;
let redisUrl: string;
let deps: SweepDeps;
let fixture: Fixture;

const TIMEOUT_MS = 10_000;
const GRACE_MS = 60_000;
const HORIZON_MS = 600_000;
const sweep = (options: { batchSize?: number; maxRows?: number; maxQueued?: number } = {}) =>
  sweepDeliveries(deps, { graceMs: GRACE_MS, horizonMs: HORIZON_MS, ...options });

beforeAll(async () => {
  database = await isolatedDatabase();
  db = database.db;
  const env = testEnv();
  prefix = env.redisPrefix;
  redisUrl = env.redisUrl;
  redis = createRedis(env.redisUrl);
  queue = createWebhookQueue(redis, prefix);
  deps = { db, queue, redis, logger: silentLogger, attemptTimeoutMs: TIMEOUT_MS };
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

describe("sweepDeliveries", () => {
  it("queues overdue, soon-due and stuck deliveries that have no job, with the remaining delay, and leaves the rest alone", async () => {
    const duePending = await delivery({ status: "pending", attemptCount: 2, nextAttemptAt: ago(GRACE_MS + 5_000) });
    // Within the grace period the producer (or the dispatcher after its commit) is still expected to enqueue.
    const justDue = await delivery({ status: "pending", nextAttemptAt: ago(1_000) });
    const stuck = await delivery({
      status: "delivering",
      attemptCount: 4,
      updatedAt: ago(TIMEOUT_MS + GRACE_MS + 5_000),
    });
    // A retry kept in PostgreSQL enters the horizon: its job waits in Redis for the rest of the delay.
    const soon = await delivery({ status: "pending", attemptCount: 3, nextAttemptAt: new Date(Date.now() + 120_000) });
    // Beyond the horizon: stays in PostgreSQL only.
    const later = await delivery({
      status: "pending",
      attemptCount: 1,
      nextAttemptAt: new Date(Date.now() + 3_600_000),
    });
    const inFlight = await delivery({ status: "delivering", updatedAt: ago(1_000) });
    const done = await delivery({ status: "delivered", attemptCount: 1 });
    const dead = await delivery({ status: "failed", attemptCount: 7 });

    const result = await sweep();

    expect(result).toEqual({ scanned: 3, queued: 3, more: false });
    expect(await jobState(duePending, 3)).toBe("waiting");
    expect(await jobState(stuck, 5)).toBe("waiting");
    expect(await jobState(soon, 4)).toBe("delayed");
    const soonJob = await queue.getJob(deliverWebhookJob.jobId(soon, 4));
    expect(soonJob?.opts.delay).toBeGreaterThan(110_000);
    expect(soonJob?.opts.delay).toBeLessThanOrEqual(120_000);
    for (const [id, attempt] of [
      [justDue, 1],
      [later, 2],
      [inFlight, 1],
      [done, 2],
      [dead, 8],
    ] as const) {
      expect(await jobState(id, attempt)).toBeUndefined();
    }

    // Idempotent: the jobs are live now, a second run adds nothing.
    expect(await sweep()).toMatchObject({ scanned: 3, queued: 0 });
  });

  it("leaves a live delayed job alone but replaces a finished one whose row still needs that attempt", async () => {
    const delayed = await delivery({ status: "pending", attemptCount: 1, nextAttemptAt: ago(GRACE_MS + 1_000) });
    await enqueueDeliveryAttempt(queue, delayed, 2, 3_600_000);
    const orphan = await delivery({ status: "delivering", updatedAt: ago(TIMEOUT_MS + GRACE_MS + 1_000) });
    await enqueueDeliveryAttempt(queue, orphan, 1);
    // A worker fails the orphan's job for good without touching the row.
    const connection = createRedis(redisUrl, "worker");
    const worker = new Worker(QUEUES.webhooks, () => Promise.reject(new UnrecoverableError("postgres fora do ar")), {
      connection,
      prefix,
    });
    try {
      await eventually(async () => (await jobState(orphan, 1)) === "failed", { what: "job falhar" });
    } finally {
      await worker.close();
      connection.disconnect();
    }

    const result = await sweep();

    expect(result).toMatchObject({ scanned: 2, queued: 1 });
    expect(await jobState(delayed, 2)).toBe("delayed");
    expect(await jobState(orphan, 1)).toBe("waiting");
  });

  it("reads in keyset pages until the horizon is covered, and says when it stopped early", async () => {
    const ids: bigint[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(await delivery({ status: "pending", nextAttemptAt: ago(GRACE_MS + 1_000 + i) }));

    expect(await sweep({ batchSize: 2 })).toEqual({ scanned: 5, queued: 5, more: false });
    for (const id of ids) expect(await jobState(id, 1)).toBe("waiting");

    await queue.obliterate({ force: true });
    const capped = await sweep({ batchSize: 2, maxRows: 3 });
    expect(capped).toEqual({ scanned: 3, queued: 3, more: true });
    expect(await sweep({ batchSize: 2 })).toEqual({ scanned: 5, queued: 2, more: false });
  });

  it("adds no jobs beyond maxQueued: a large backlog waits in PostgreSQL, not in Redis", async () => {
    for (let i = 0; i < 6; i++) await delivery({ status: "pending", nextAttemptAt: ago(GRACE_MS + 1_000 + i) });

    expect(await sweep({ maxQueued: 4 })).toMatchObject({ queued: 4, more: true });
    expect((await queue.getJobCounts("waiting")).waiting).toBe(4);
    expect(await sweep({ maxQueued: 4 })).toMatchObject({ queued: 0, more: true });
  });
});

describe("createDeliveryScheduler", () => {
  it("queues a retry within the horizon, leaves a later one to the sweep, and stops adding when Redis holds maxQueued", async () => {
    const scheduler = createDeliveryScheduler({ queue, logger: silentLogger, horizonMs: HORIZON_MS, maxQueued: 3 });
    const soon = new Date(Date.now() + 30_000);
    const ids: bigint[] = [];
    for (let i = 0; i < 5; i++) ids.push(await delivery({ status: "pending", attemptCount: 1, nextAttemptAt: soon }));
    const later = await delivery({
      status: "pending",
      attemptCount: 1,
      nextAttemptAt: new Date(Date.now() + 3_600_000),
    });

    for (const id of ids) await scheduler.schedule(String(id), 2, soon);
    await scheduler.schedule(String(later), 2, new Date(Date.now() + 3_600_000));

    const states = await Promise.all(ids.map((id) => jobState(id, 2)));
    expect(states.filter((state) => state === "delayed")).toHaveLength(3);
    expect(states.filter((state) => state === undefined)).toHaveLength(2);
    expect(await jobState(later, 2)).toBeUndefined();
  });
});
