// The sweep under a long overdue backlog whose jobs are live (an integration's deliveries deferred by its breaker
// or in-flight cap stay overdue for as long as it is down): the retries of everyone else entering the horizon are
// still queued, and a live job is left alone.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { deliverWebhookJob, enqueueDeliveryAttempt } from "@gw/jobs";
import { createDelivery, createFixture, silentLogger, testEnv, isolatedDatabase } from "@gw/testkit";
import { sweepDeliveries, type SweepDeps } from "../src/deliveries/index.ts";
import { openQueueBed, type QueueBed } from "./support/webhook-bed.ts";

const GRACE_MS = 60_000;

let deps: SweepDeps;

let bed: QueueBed;

beforeAll(async () => {
  bed = openQueueBed(testEnv(), await isolatedDatabase());
  deps = { db: bed.db, queue: bed.queue, redis: bed.redis, logger: silentLogger, attemptTimeoutMs: 10_000 };
});

afterAll(async () => {
  await bed.close();
});

describe("sweepDeliveries with a deferred backlog", () => {
  it("queues another tenant's retry entering the horizon although the overdue rows fill the row budget", async () => {
    const broken = await createFixture(bed.db, "http://127.0.0.1:9/a");
    const healthy = await createFixture(bed.db, "http://127.0.0.1:9/b");
    const deferred: bigint[] = [];
    for (let i = 0; i < 5; i++) {
      const { id } = await createDelivery(bed.db, broken);
      await bed.db.delivery.update({
        where: { id },
        data: { nextAttemptAt: new Date(Date.now() - GRACE_MS - 10_000 - i) },
      });
      // Deferred by the breaker: its job waits in Redis, delayed.
      await enqueueDeliveryAttempt(bed.queue, id, 1, 30_000, broken.integrationId);
      deferred.push(id);
    }
    // A retry kept in PostgreSQL, due in a minute.
    const { id: retry } = await createDelivery(bed.db, healthy);
    await bed.db.delivery.update({
      where: { id: retry },
      data: { attemptCount: 3, nextAttemptAt: new Date(Date.now() + 60_000) },
    });

    const result = await sweepDeliveries(deps, { graceMs: GRACE_MS, horizonMs: 180_000, batchSize: 2, maxRows: 3 });

    expect(result).toMatchObject({ queued: 1, more: true });
    const job = await bed.queue.getJob(deliverWebhookJob.jobId(retry, 4));
    expect(await job?.getState()).toBe("delayed");
    expect(job?.data).toEqual({ deliveryId: retry.toString(), attempt: 4, integrationId: healthy.integrationId });
    for (const id of deferred)
      expect(await (await bed.queue.getJob(deliverWebhookJob.jobId(id, 1)))?.getState()).toBe("delayed");
  });
});
