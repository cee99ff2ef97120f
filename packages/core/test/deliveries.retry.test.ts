import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Worker } from "bullmq";
import { ApiError } from "@gw/errors";
import { createRedis, deliverWebhookJob, enqueueDeliveryAttempt, QUEUES } from "@gw/jobs";
import { createDelivery, createFixture, eventually, isolatedDatabase, type Fixture, testEnv } from "@gw/testkit";
import { retryDelivery, retryFailedDeliveries } from "../src/deliveries/index.ts";
import { openQueueBed, type QueueBed } from "./support/webhook-bed.ts";

let bed: QueueBed;

beforeAll(async () => {
  // A database of the file's own: a retried delivery is due at once, and another file's dispatcher sweeping the shared
  // database would take it (seen in a loaded run: `delivering` where the test expects `pending`).
  bed = openQueueBed(testEnv(), await isolatedDatabase());
});

afterAll(async () => {
  await bed.close();
});

async function failedDelivery(fixture: Fixture, attempts = 7, status = "failed") {
  const delivery = await createDelivery(bed.db, fixture);
  await bed.db.delivery.update({
    where: { id: delivery.id },
    data: {
      status,
      attemptCount: attempts,
      lastStatusCode: 500,
      lastErrorKind: "http_status",
      ...(status === "delivered" ? { deliveredAt: new Date() } : {}),
    },
  });
  return delivery;
}

async function expectApiError(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe(code);
}

describe("retryDelivery", () => {
  it("puts a failed delivery back with a fresh budget, queues the next attempt number and audits it in the same transaction", async () => {
    const fixture = await createFixture(bed.db, "http://127.0.0.1:9/x");
    const delivery = await failedDelivery(fixture, 7);

    const result = await retryDelivery(
      { db: bed.db, queue: bed.queue },
      {
        accountId: fixture.accountId,
        deliveryId: delivery.id.toString(),
        actor: { id: "api_key:teste", origin: "api", requestId: "req-1" },
      },
    );

    expect(result).toEqual({ id: delivery.id.toString(), status: "pending", previousStatus: "failed", nextAttempt: 8 });
    const stored = await bed.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } });
    expect(stored).toMatchObject({ status: "pending", attemptCount: 7, budgetStart: 7, deliveredAt: null });
    expect(stored.nextAttemptAt).not.toBeNull();
    const job = await bed.queue.getJob(deliverWebhookJob.jobId(delivery.id, 8));
    expect(job?.data).toEqual({ deliveryId: delivery.id.toString(), attempt: 8 });
    const audit = await bed.db.auditEntry.findMany({ where: { accountId: fixture.accountId } });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor: "api_key:teste",
      action: "api.webhook.retry",
      target: `delivery:${delivery.id}`,
      requestId: "req-1",
    });
  });

  it("re-sends a delivered delivery (reprocessing) and clears delivered_at", async () => {
    const fixture = await createFixture(bed.db, "http://127.0.0.1:9/x");
    const delivery = await failedDelivery(fixture, 1, "delivered");

    const result = await retryDelivery(
      { db: bed.db, queue: bed.queue },
      {
        accountId: fixture.accountId,
        deliveryId: delivery.id,
        actor: { id: "cli", origin: "cli" },
      },
    );

    expect(result).toMatchObject({ previousStatus: "delivered", nextAttempt: 2 });
    const stored = await bed.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } });
    expect(stored).toMatchObject({ status: "pending", deliveredAt: null, budgetStart: 1 });
    expect(await bed.queue.getJob(deliverWebhookJob.jobId(delivery.id, 2))).toBeDefined();
  });

  it("refuses deliveries still in the queue, without auditing", async () => {
    const fixture = await createFixture(bed.db, "http://127.0.0.1:9/x");
    const pending = await createDelivery(bed.db, fixture);
    const delivering = await failedDelivery(fixture, 2, "delivering");

    await expectApiError(
      retryDelivery(
        { db: bed.db, queue: bed.queue },
        {
          accountId: fixture.accountId,
          deliveryId: pending.id,
          actor: { id: "cli", origin: "cli" },
        },
      ),
      "delivery_not_retryable",
    );
    await expectApiError(
      retryDelivery(
        { db: bed.db, queue: bed.queue },
        {
          accountId: fixture.accountId,
          deliveryId: delivering.id,
          actor: { id: "cli", origin: "cli" },
        },
      ),
      "delivery_not_retryable",
    );
    expect(await bed.db.auditEntry.count({ where: { accountId: fixture.accountId } })).toBe(0);
    expect((await bed.db.delivery.findUniqueOrThrow({ where: { id: delivering.id } })).status).toBe("delivering");
  });

  it("answers not_found for another account's delivery, an unknown id or a malformed id", async () => {
    const owner = await createFixture(bed.db, "http://127.0.0.1:9/x");
    const other = await createFixture(bed.db, "http://127.0.0.1:9/y");
    const delivery = await failedDelivery(owner);
    const base = { actor: { id: "cli", origin: "cli" as const } };

    await expectApiError(
      retryDelivery({ db: bed.db, queue: bed.queue }, { ...base, accountId: other.accountId, deliveryId: delivery.id }),
      "not_found",
    );
    await expectApiError(
      retryDelivery(
        { db: bed.db, queue: bed.queue },
        { ...base, accountId: owner.accountId, deliveryId: "999999999999" },
      ),
      "not_found",
    );
    await expectApiError(
      retryDelivery({ db: bed.db, queue: bed.queue }, { ...base, accountId: owner.accountId, deliveryId: "12abc" }),
      "not_found",
    );
    await expectApiError(
      retryDelivery(
        { db: bed.db, queue: bed.queue },
        { ...base, accountId: owner.accountId, deliveryId: "99999999999999999999" },
      ),
      "not_found",
    );
    expect((await bed.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } })).status).toBe("failed");
  });

  it("queues the attempt again even when a finished job already holds its id (failed as integration_inactive, then re-activated)", async () => {
    const fixture = await createFixture(bed.db, "http://127.0.0.1:9/x");
    const delivery = await createDelivery(bed.db, fixture);
    // Attempt 1's job ran and completed (the integration was inactive: no attempt counted).
    await enqueueDeliveryAttempt(bed.queue, delivery.id, 1);
    const connection = createRedis(bed.redisUrl, "worker");
    const worker = new Worker(QUEUES.webhooks, () => Promise.resolve("integration_inactive"), {
      connection,
      prefix: bed.prefix,
    });
    const jobId = deliverWebhookJob.jobId(delivery.id, 1);
    try {
      await eventually(async () => (await (await bed.queue.getJob(jobId))?.getState()) === "completed", {
        what: "job concluído",
      });
    } finally {
      await worker.close();
      connection.disconnect();
    }
    await bed.db.delivery.update({
      where: { id: delivery.id },
      data: { status: "failed", lastErrorKind: "integration_inactive" },
    });

    const result = await retryDelivery(
      { db: bed.db, queue: bed.queue },
      {
        accountId: fixture.accountId,
        deliveryId: delivery.id,
        actor: { id: "cli", origin: "cli" },
      },
    );

    expect(result.nextAttempt).toBe(1);
    const job = await bed.queue.getJob(jobId);
    expect(await job?.getState()).toBe("waiting");
  });
});

describe("retryFailedDeliveries", () => {
  it("re-queues every failed delivery of the account, and only those, with one audit entry", async () => {
    const fixture = await createFixture(bed.db, "http://127.0.0.1:9/x");
    const other = await createFixture(bed.db, "http://127.0.0.1:9/y");
    const failed = [
      await failedDelivery(fixture, 7),
      await failedDelivery(fixture, 3),
      await failedDelivery(fixture, 14),
    ];
    const delivered = await failedDelivery(fixture, 1, "delivered");
    const pending = await createDelivery(bed.db, fixture);
    const foreign = await failedDelivery(other, 7);

    const count = await retryFailedDeliveries(
      { db: bed.db, queue: bed.queue },
      {
        accountId: fixture.accountId,
        actor: { id: "api_key:k", origin: "api", requestId: "req-2" },
      },
    );

    expect(count).toBe(3);
    for (const { id } of failed) {
      const stored = await bed.db.delivery.findUniqueOrThrow({ where: { id } });
      expect(stored.status).toBe("pending");
      expect(stored.budgetStart).toBe(stored.attemptCount);
      const data = (await bed.queue.getJob(deliverWebhookJob.jobId(id, stored.attemptCount + 1)))?.data;
      expect(data && "attempt" in data ? data.attempt : undefined).toBe(stored.attemptCount + 1);
    }
    expect((await bed.db.delivery.findUniqueOrThrow({ where: { id: delivered.id } })).status).toBe("delivered");
    expect((await bed.db.delivery.findUniqueOrThrow({ where: { id: pending.id } })).status).toBe("pending");
    expect((await bed.db.delivery.findUniqueOrThrow({ where: { id: foreign.id } })).status).toBe("failed");
    const audit = await bed.db.auditEntry.findMany({ where: { accountId: fixture.accountId } });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: "api.webhook.retry", requestId: "req-2", details: { count: 3 } });

    expect(
      await retryFailedDeliveries(
        { db: bed.db, queue: bed.queue },
        {
          accountId: fixture.accountId,
          actor: { id: "api_key:k", origin: "api" },
        },
      ),
    ).toBe(0);
  });
});
