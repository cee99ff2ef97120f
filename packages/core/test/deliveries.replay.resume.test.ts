// Replay by time range (issue 21), the job's side: each step is one batch, committed with the replay's new place,
// so a run that stops anywhere resumes without re-sending what it already re-queued nor skipping the rest: after a
// crash between a batch's commit and its jobs (the sweep queues those rows), with two workers running the same
// replay at once (a stalled job taken over), and with its job lost (the replay is still listed as unfinished).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createRedis, createWebhookQueue, deliverWebhookJob } from "@gw/jobs";
import { createFixture, silentLogger, testEnv, type Fixture, isolatedDatabase } from "@gw/testkit";
import {
  advanceDeliveryReplay,
  createDeliveryReplay,
  getDeliveryReplay,
  sweepDeliveries,
  unfinishedReplays,
} from "../src/deliveries/index.ts";
import { openQueueBed, type QueueBed } from "./support/webhook-bed.ts";

const DAY = 86_400_000;
const actor = { id: "api_key:replay-test", origin: "api" as const, requestId: "req-replay" };

let bed: QueueBed;

beforeAll(async () => {
  bed = openQueueBed(testEnv(), await isolatedDatabase());
});

afterAll(async () => {
  await bed.close();
});

/** A delivery in a final state, created `daysAgo` days ago (and last changed then, unless `updatedDaysAgo`). */
async function finished(
  fixture: Fixture,
  status: "failed" | "delivered",
  createdAt: Date,
  updatedAt = new Date(),
): Promise<bigint> {
  const row = await bed.db.delivery.create({
    data: {
      accountId: fixture.accountId,
      integrationId: fixture.integrationId,
      event: "message.status",
      status,
      body: "{}",
      attemptCount: 2,
      occurredAt: createdAt,
      createdAt,
      updatedAt,
    },
  });
  return row.id;
}

async function jobsOf(ids: readonly bigint[]): Promise<number> {
  let count = 0;
  for (const id of ids) if (await bed.queue.getJob(deliverWebhookJob.jobId(id, 3))) count++;
  return count;
}

describe("a replay's job resumes where it stopped", () => {
  it("re-queues each matching delivery once across a crash after commit, two workers at once and a lost job", async () => {
    const fixture = await createFixture(bed.db, "http://127.0.0.1:9/replay");
    const since = new Date(Date.now() - 3 * DAY);
    const ids: bigint[] = [];
    for (let i = 0; i < 9; i++)
      ids.push(await finished(fixture, i % 2 ? "failed" : "delivered", new Date(since.getTime() + (i + 1) * 60_000)));
    // Past its retention (delivered 10 days ago by the row, kept 5 days): not replayed, even if not purged yet.
    const expired = await finished(
      fixture,
      "delivered",
      new Date(since.getTime() + 30 * 60_000),
      new Date(Date.now() - 10 * DAY),
    );
    const retention = { deliveredDays: 5, failedDays: 5 };

    const created = await createDeliveryReplay(
      { db: bed.db, logger: silentLogger },
      {
        accountId: fixture.accountId,
        actor,
        since,
        until: new Date(),
      },
    );
    if (created.kind !== "created") throw new Error("replay refused");
    const replayId = created.replay.id;
    expect(created.replay).toMatchObject({ status: "pending", matched: null, queued: 0 });
    expect(await unfinishedReplays({ db: bed.db })).toEqual([replayId]);

    // 1. A batch commits, then its jobs cannot be queued (the process dies, or Redis is gone): the rows are pending
    // and due, and the dispatcher's sweep gives them their jobs.
    const deadRedis = createRedis(testEnv().redisUrl);
    const deadQueue = createWebhookQueue(deadRedis, testEnv().redisPrefix);
    deadRedis.disconnect();
    const first = await advanceDeliveryReplay(
      { db: bed.db, queue: deadQueue, logger: silentLogger },
      { replayId, batchSize: 3, retention },
    );
    await deadQueue.close().catch(() => undefined);
    expect(first).toEqual({ kind: "again", queued: 3 });
    expect(await getDeliveryReplay({ db: bed.db }, { accountId: fixture.accountId, replayId })).toMatchObject({
      status: "running",
      matched: 9,
      queued: 3,
    });
    expect(await jobsOf(ids.slice(0, 3))).toBe(0);
    const swept = await sweepDeliveries(
      { db: bed.db, queue: bed.queue, redis: bed.redis, logger: silentLogger, attemptTimeoutMs: 1_000 },
      { horizonMs: 60_000, graceMs: 0, batchSize: 100 },
    );
    expect(swept.queued).toBe(3);
    expect(await jobsOf(ids.slice(0, 3))).toBe(3);

    // 2. The job is taken over while its first worker still runs: both advance the same replay at once; the
    // replay's row lock serializes them, the second starts after the first's cursor.
    const [a, b] = await Promise.all([
      advanceDeliveryReplay(
        { db: bed.db, queue: bed.queue, logger: silentLogger },
        { replayId, batchSize: 3, retention },
      ),
      advanceDeliveryReplay(
        { db: bed.db, queue: bed.queue, logger: silentLogger },
        { replayId, batchSize: 3, retention },
      ),
    ]);
    expect([a, b]).toEqual([
      { kind: "again", queued: 3 },
      { kind: "again", queued: 3 },
    ]);
    expect(await jobsOf(ids)).toBe(9);

    // 3. Its job lost with Redis: the replay is still listed as unfinished, and the next run completes it.
    expect(await unfinishedReplays({ db: bed.db })).toEqual([replayId]);
    expect(
      await advanceDeliveryReplay(
        { db: bed.db, queue: bed.queue, logger: silentLogger },
        { replayId, batchSize: 3, retention },
      ),
    ).toEqual({
      kind: "completed",
      queued: 0,
    });
    expect(await unfinishedReplays({ db: bed.db })).toEqual([]);
    expect(await advanceDeliveryReplay({ db: bed.db, queue: bed.queue }, { replayId, retention })).toEqual({
      kind: "gone",
    });

    const done = await getDeliveryReplay({ db: bed.db }, { accountId: fixture.accountId, replayId });
    expect(done).toMatchObject({ status: "completed", matched: 9, queued: 9 });
    const rows = await bed.db.delivery.findMany({ where: { id: { in: ids } } });
    expect(rows.every((row) => row.status === "pending" && row.budgetStart === 2)).toBe(true);
    expect((await bed.db.delivery.findUniqueOrThrow({ where: { id: expired } })).status).toBe("delivered");
    const audit = await bed.db.auditEntry.findMany({
      where: { target: `replay:${replayId}`, action: "api.webhook.retry" },
      orderBy: { id: "asc" },
    });
    expect(audit.map((entry) => entry.details)).toEqual([
      { count: 3, batch: 1 },
      { count: 3, batch: 2 },
      { count: 3, batch: 3 },
    ]);
    expect(audit.every((entry) => entry.actor === actor.id && entry.requestId === actor.requestId)).toBe(true);
  });

  it("waits instead of re-queueing while the webhook queue holds more than its cap", async () => {
    const fixture = await createFixture(bed.db, "http://127.0.0.1:9/full");
    const since = new Date(Date.now() - DAY);
    await finished(fixture, "failed", new Date(since.getTime() + 60_000));
    const created = await createDeliveryReplay(
      { db: bed.db },
      { accountId: fixture.accountId, actor, since, until: new Date() },
    );
    if (created.kind !== "created") throw new Error("replay refused");
    const waiting = await bed.queue.getJobCounts("waiting", "delayed", "prioritized");
    const queued = Object.values(waiting).reduce((sum, n) => sum + n, 0);
    const outcome = await advanceDeliveryReplay(
      { db: bed.db, queue: bed.queue },
      { replayId: created.replay.id, batchSize: 5, maxQueued: queued + 4 },
    );
    expect(outcome.kind).toBe("wait");
    expect(
      await getDeliveryReplay({ db: bed.db }, { accountId: fixture.accountId, replayId: created.replay.id }),
    ).toMatchObject({
      status: "pending",
      queued: 0,
    });
  });
});
