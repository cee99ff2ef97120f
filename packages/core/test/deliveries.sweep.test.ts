import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { UnrecoverableError, Worker } from "bullmq";
import { createRedis, deliverWebhookJob, enqueueDeliveryAttempt, QUEUES } from "@gw/jobs";
import {
  createDelivery,
  createFixture,
  eventually,
  silentLogger,
  type Fixture,
  testEnv,
  isolatedDatabase,
} from "@gw/testkit";
import { createDeliveryScheduler, sweepDeliveries, type SweepDeps } from "../src/deliveries/index.ts";
import { openQueueBed, type QueueBed } from "./support/webhook-bed.ts";

// The sweep reads the whole deliveries table: a database of its own keeps other test files' rows out.
let deps: SweepDeps;
let fixture: Fixture;

const TIMEOUT_MS = 10_000;
const GRACE_MS = 60_000;
const HORIZON_MS = 600_000;
const sweep = (options: { batchSize?: number; maxRows?: number; maxQueued?: number } = {}) =>
  sweepDeliveries(deps, { graceMs: GRACE_MS, horizonMs: HORIZON_MS, ...options });

let bed: QueueBed;

beforeAll(async () => {
  bed = openQueueBed(testEnv(), await isolatedDatabase());
  deps = { db: bed.db, queue: bed.queue, redis: bed.redis, logger: silentLogger, attemptTimeoutMs: TIMEOUT_MS };
  fixture = await createFixture(bed.db, "http://127.0.0.1:9/x");
});

afterAll(async () => {
  await bed.close();
});

beforeEach(async () => {
  await bed.db.delivery.deleteMany({});
  await bed.queue.obliterate({ force: true });
});

const ago = (ms: number) => new Date(Date.now() - ms);

async function delivery(data: {
  status: string;
  attemptCount?: number;
  nextAttemptAt?: Date | null;
  updatedAt?: Date;
  createdAt?: Date;
}) {
  const { id } = await createDelivery(bed.db, fixture);
  await bed.db.delivery.update({ where: { id }, data });
  return id;
}

async function jobState(id: bigint, attempt: number): Promise<string | undefined> {
  return (await bed.queue.getJob(deliverWebhookJob.jobId(id, attempt)))?.getState();
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
    const soonJob = await bed.queue.getJob(deliverWebhookJob.jobId(soon, 4));
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
    await enqueueDeliveryAttempt(bed.queue, delayed, 2, 3_600_000);
    const orphan = await delivery({ status: "delivering", updatedAt: ago(TIMEOUT_MS + GRACE_MS + 1_000) });
    await enqueueDeliveryAttempt(bed.queue, orphan, 1);
    // A worker fails the orphan's job for good without touching the row.
    const connection = createRedis(bed.redisUrl, "worker");
    const worker = new Worker(QUEUES.webhooks, () => Promise.reject(new UnrecoverableError("postgres fora do ar")), {
      connection,
      prefix: bed.prefix,
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

    await bed.queue.obliterate({ force: true });
    const capped = await sweep({ batchSize: 2, maxRows: 3 });
    expect(capped).toEqual({ scanned: 3, queued: 3, more: true });
    expect(await sweep({ batchSize: 2 })).toEqual({ scanned: 5, queued: 2, more: false });
  });

  it("adds no jobs beyond maxQueued: a large backlog waits in PostgreSQL, not in Redis", async () => {
    for (let i = 0; i < 6; i++) await delivery({ status: "pending", nextAttemptAt: ago(GRACE_MS + 1_000 + i) });

    expect(await sweep({ maxQueued: 4 })).toMatchObject({ queued: 4, more: true });
    expect((await bed.queue.getJobCounts("waiting")).waiting).toBe(4);
    expect(await sweep({ maxQueued: 4 })).toMatchObject({ queued: 0, more: true });
  });
});

describe("createDeliveryScheduler", () => {
  it("queues a retry within the horizon, leaves a later one to the sweep, and stops adding when Redis holds maxQueued", async () => {
    const scheduler = createDeliveryScheduler({
      queue: bed.queue,
      logger: silentLogger,
      horizonMs: HORIZON_MS,
      maxQueued: 3,
    });
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
