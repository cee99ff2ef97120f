// `retry-failed` over a large dead-letter backlog (Hardening 8, fairness): short batches, each its own
// transaction, never one unbounded UPDATE; every delivery re-queued, its job naming its integration.
// A trigger of this test's own database records the transaction of every row the retry changes.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Worker } from "bullmq";
import { createRedis, deliverWebhookJob, enqueueDeliveryAttempt, QUEUES } from "@gw/jobs";
import { createFixture, eventually, silentLogger, type Fixture, testEnv, isolatedDatabase } from "@gw/testkit";
import { retryFailedDeliveries } from "../src/deliveries/index.ts";
import { openQueueBed, type QueueBed } from "./support/webhook-bed.ts";

let bed: QueueBed;

beforeAll(async () => {
  bed = openQueueBed(testEnv(), await isolatedDatabase());
  await bed.db.$executeRawUnsafe(`CREATE TABLE retried_rows (txid bigint NOT NULL, delivery_id bigint NOT NULL)`);
  await bed.db.$executeRawUnsafe(`
    CREATE FUNCTION log_retried_row() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO retried_rows VALUES (txid_current(), NEW.id);
      RETURN NEW;
    END $$`);
  await bed.db.$executeRawUnsafe(`
    CREATE TRIGGER log_retried_row AFTER UPDATE ON deliveries
    FOR EACH ROW WHEN (OLD.status = 'failed' AND NEW.status = 'pending') EXECUTE FUNCTION log_retried_row()`);
});

afterAll(async () => {
  await bed.close();
});

/** `count` dead letters (7 attempts spent) of the fixture's integration, inserted in one statement. */
async function deadLetters(fixture: Fixture, count: number, lastErrorKind = "timeout"): Promise<void> {
  await bed.db.$executeRaw`
    INSERT INTO deliveries (account_id, integration_id, event, status, body, attempt_count, budget_start,
      last_error_kind, occurred_at, updated_at)
    SELECT ${fixture.accountId}::uuid, ${fixture.integrationId}::uuid, 'message.status', 'failed', '{}', 7, 0,
      ${lastErrorKind}, now(), now()
    FROM generate_series(1, ${count})`;
}

describe("retryFailedDeliveries over a large backlog", () => {
  it("re-queues 2,500 dead letters in transactions of at most 1,000 rows, each job naming its integration", async () => {
    const fixture = await createFixture(bed.db, "http://127.0.0.1:9/x");
    const bystander = await createFixture(bed.db, "http://127.0.0.1:9/y");
    await deadLetters(fixture, 2_500);
    await deadLetters(bystander, 10);

    const count = await retryFailedDeliveries(
      { db: bed.db, queue: bed.queue, logger: silentLogger },
      {
        accountId: fixture.accountId,
        actor: { id: "api_key:k", origin: "api", requestId: "req-bulk" },
        batchSize: 1_000,
      },
    );

    expect(count).toBe(2_500);
    const transactions = await bed.db.$queryRaw<{ rows: number }[]>`
      SELECT count(*)::int AS rows FROM retried_rows GROUP BY txid ORDER BY min(delivery_id)`;
    // Several short transactions, none above the batch size: never one UPDATE over the whole backlog.
    expect(transactions.map((t) => t.rows)).toEqual([1_000, 1_000, 500]);
    const byStatus = await bed.db.$queryRaw<{ status: string; n: number }[]>`
      SELECT status, count(*)::int AS n FROM deliveries WHERE account_id = ${fixture.accountId}::uuid GROUP BY status`;
    expect(byStatus).toEqual([{ status: "pending", n: 2_500 }]);
    const others = await bed.db.delivery.count({ where: { accountId: bystander.accountId, status: "failed" } });
    expect(others).toBe(10);

    const counts = await bed.queue.getJobCounts("waiting", "delayed");
    expect((counts.waiting ?? 0) + (counts.delayed ?? 0)).toBe(2_500);
    const [job] = await bed.queue.getJobs(["waiting"], 0, 0);
    expect(job?.data).toEqual({
      deliveryId: expect.stringMatching(/^\d+$/),
      attempt: 8,
      integrationId: fixture.integrationId,
    });
    // One audit entry per batch, committed with it.
    const audit = await bed.db.auditEntry.findMany({ where: { accountId: fixture.accountId }, orderBy: { id: "asc" } });
    expect(audit.map((a) => a.details)).toEqual([
      { count: 1_000, batch: 1 },
      { count: 1_000, batch: 2 },
      { count: 500, batch: 3 },
    ]);
    expect(audit.every((a) => a.requestId === "req-bulk" && a.action === "api.webhook.retry")).toBe(true);
  });

  it("also re-queues a dead letter whose attempt id is held by a finished job (failed as integration_inactive)", async () => {
    await bed.queue.obliterate({ force: true });
    const fixture = await createFixture(bed.db, "http://127.0.0.1:9/z");
    await deadLetters(fixture, 3, "integration_inactive");
    const rows = await bed.db.delivery.findMany({ where: { accountId: fixture.accountId }, orderBy: { id: "asc" } });
    const held = rows[0];
    if (!held) throw new Error("no delivery");
    // Attempt 8's job ran and completed (inactive integration: no attempt counted).
    const connection = createRedis(bed.redisUrl, "worker");
    const worker = new Worker(QUEUES.webhooks, () => Promise.resolve("integration_inactive"), {
      connection,
      prefix: bed.prefix,
    });
    await enqueueDeliveryAttempt(bed.queue, held.id, 8);
    const jobId = deliverWebhookJob.jobId(held.id, 8);
    try {
      await eventually(async () => (await (await bed.queue.getJob(jobId))?.getState()) === "completed", {
        what: "attempt 8 completed",
      });
    } finally {
      await worker.close();
      connection.disconnect();
    }

    const count = await retryFailedDeliveries(
      { db: bed.db, queue: bed.queue, logger: silentLogger },
      { accountId: fixture.accountId, actor: { id: "cli", origin: "cli" }, batchSize: 2 },
    );

    expect(count).toBe(3);
    for (const row of rows)
      expect(await (await bed.queue.getJob(deliverWebhookJob.jobId(row.id, 8)))?.getState()).toBe("waiting");
  });
});
