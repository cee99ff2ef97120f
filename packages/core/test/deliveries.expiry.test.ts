// The retry schedule's bound on a delivery's life (spec 6.5): the deadline derived from the configured schedule, and
// the expiry that fails what is still pending past it (held back by a circuit breaker), bounded, idempotent and safe
// with several dispatcher pods; a manual retry gives a fresh deadline.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { deliverWebhookJob, enqueueDeliveryAttempt } from "@gw/jobs";
import { createDelivery, createFixture, silentLogger, testActor, testEnv, isolatedDatabase } from "@gw/testkit";
import type { Fixture } from "@gw/testkit";
import {
  attemptBudget,
  budgetLifetimeMs,
  failExpiredDeliveries,
  nextDelayMs,
  retryDelivery,
  retryFailedDeliveries,
  type ExpiryDeps,
} from "../src/deliveries/index.ts";
import { openQueueBed, type QueueBed } from "./support/webhook-bed.ts";

const SPEC_SCHEDULE = [30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000];

describe("a delivery's deadline (the longest its retry schedule can take)", () => {
  it("with the spec's schedule: every wait at +20 % and every attempt at its 10 s limit, about 37.5 h", () => {
    const lifetime = budgetLifetimeMs({ scheduleMs: SPEC_SCHEDULE, jitter: 0.2, attemptTimeoutMs: 10_000 });
    // 31 h 12 min 30 s of waits × 1.2, plus 7 attempts × 10 s.
    expect(lifetime).toBe(112_350_000 * 1.2 + 7 * 10_000);
    expect(lifetime / 3_600_000).toBeGreaterThan(31);
    expect(lifetime / 3_600_000).toBeLessThan(38);
  });

  it("follows the configured schedule, jitter and attempt limit, not a fixed 31 h", () => {
    expect(budgetLifetimeMs({ scheduleMs: [50, 50, 50, 50, 50, 50], jitter: 0, attemptTimeoutMs: 100 })).toBe(1_000);
    expect(budgetLifetimeMs({ scheduleMs: [50, 50, 50, 50, 50, 50], jitter: 0.2, attemptTimeoutMs: 100 })).toBe(1_060);
    expect(budgetLifetimeMs({ scheduleMs: [1_000], jitter: 0.5, attemptTimeoutMs: 2_000 })).toBe(1_500 + 2 * 2_000);
    // No retries: one attempt's time.
    expect(budgetLifetimeMs({ scheduleMs: [], jitter: 0.2, attemptTimeoutMs: 2_000 })).toBe(2_000);
  });

  it("is never shorter than a schedule run in full: all attempts always fit before it", () => {
    for (const scheduleMs of [SPEC_SCHEDULE, [50, 100, 150, 200, 250, 300], [7, 13, 1_001]]) {
      for (const jitter of [0, 0.2, 0.5]) {
        const attemptTimeoutMs = 10_000;
        const lifetime = budgetLifetimeMs({ scheduleMs, jitter, attemptTimeoutMs });
        // The random source at its top: every wait at its longest (nextDelayMs rounds each one).
        const longest = Array.from({ length: scheduleMs.length }, (_, i) =>
          nextDelayMs(i + 1, scheduleMs, jitter, () => 0.999_999_999),
        ).reduce<number>((sum, wait) => sum + (wait ?? 0), 0);
        expect(longest + attemptBudget(scheduleMs) * attemptTimeoutMs).toBeLessThanOrEqual(lifetime);
        // And not far longer: within a millisecond per wait.
        expect(lifetime - longest - attemptBudget(scheduleMs) * attemptTimeoutMs).toBeLessThanOrEqual(
          scheduleMs.length,
        );
      }
    }
  });
});

// The expiry reads the whole deliveries table: a database of its own keeps other test files' rows out.
let deps: ExpiryDeps;
let fixture: Fixture;

const LIFETIME_MS = 60_000;
/** Budgets in these tests start here (an hour ago), so `now` can be placed on either side of the deadline. */
const START = new Date(Date.now() - 3_600_000);
const at = (ms: number) => new Date(START.getTime() + ms);

let bed: QueueBed;

beforeAll(async () => {
  bed = openQueueBed(testEnv(), await isolatedDatabase());
  deps = { db: bed.db, queue: bed.queue, logger: silentLogger };
  fixture = await createFixture(bed.db, "http://127.0.0.1:9/webhooks");
});

afterAll(async () => {
  await bed.close();
});

beforeEach(async () => {
  await bed.db.delivery.deleteMany({});
  await bed.queue.obliterate({ force: true });
});

/** A delivery whose budget started at START (or `startedAt`), with the given row fields. */
async function delivery(
  data: {
    status?: string;
    attemptCount?: number;
    budgetStart?: number;
    lastStatusCode?: number | null;
    lastError?: string | null;
    lastErrorKind?: string | null;
  } = {},
  startedAt = START,
): Promise<bigint> {
  const { id } = await createDelivery(bed.db, fixture);
  await bed.db.delivery.update({
    where: { id },
    data: { status: "pending", budgetStartedAt: startedAt, nextAttemptAt: startedAt, ...data },
  });
  return id;
}

const expire = (now: Date, options: { batchSize?: number; maxRows?: number } = {}) =>
  failExpiredDeliveries(deps, { lifetimeMs: LIFETIME_MS, now, ...options });

const row = (id: bigint) => bed.db.delivery.findUniqueOrThrow({ where: { id } });

describe("failing the deliveries past their deadline", () => {
  it("a delivery the breaker held back stays pending until the deadline, then fails as `expired`", async () => {
    const id = await delivery();

    expect(await expire(at(LIFETIME_MS - 1))).toEqual({ expired: 0, byEvent: {}, more: false });
    expect(await row(id)).toMatchObject({ status: "pending", attemptCount: 0 });

    expect(await expire(at(LIFETIME_MS))).toEqual({ expired: 1, byEvent: { "message.status": 1 }, more: false });
    expect(await row(id)).toMatchObject({
      status: "failed",
      attemptCount: 0,
      nextAttemptAt: null,
      lastStatusCode: null,
      lastError: null,
      lastErrorKind: "expired",
      updatedAt: at(LIFETIME_MS),
    });
  });

  it("keeps the last error of a delivery that made attempts in its budget before the breaker held it", async () => {
    const timedOut = await delivery({ attemptCount: 2, lastErrorKind: "timeout" });
    const answered = await delivery({
      attemptCount: 3,
      lastStatusCode: 503,
      lastError: "indisponível",
      lastErrorKind: "http_status",
    });

    expect((await expire(at(LIFETIME_MS))).expired).toBe(2);
    expect(await row(timedOut)).toMatchObject({
      status: "failed",
      attemptCount: 2,
      lastStatusCode: null,
      lastError: null,
      lastErrorKind: "timeout",
    });
    expect(await row(answered)).toMatchObject({
      status: "failed",
      attemptCount: 3,
      lastStatusCode: 503,
      lastError: "indisponível",
      lastErrorKind: "http_status",
    });
  });

  it("a revived delivery that made no attempt since its retry says `expired`, not the previous budget's answer", async () => {
    const id = await delivery({
      attemptCount: 7,
      budgetStart: 7,
      lastStatusCode: 500,
      lastError: "erro antigo",
      lastErrorKind: "http_status",
    });
    await expire(at(LIFETIME_MS));
    expect(await row(id)).toMatchObject({
      status: "failed",
      attemptCount: 7,
      lastStatusCode: null,
      lastError: null,
      lastErrorKind: "expired",
    });
  });

  it("keeps `secret_unavailable` recorded in its budget (its signing secret never opened), not one a previous budget left", async () => {
    // The dispatcher gave the claim back with the cause, after the budget started; no attempt was spent.
    const locked = await delivery({ lastErrorKind: "secret_unavailable" });
    // Revived by a retry (updated_at = budget_started_at) after a budget that ended on the secret; nothing since.
    const revived = await delivery({ attemptCount: 2, budgetStart: 2, lastErrorKind: "secret_unavailable" });
    const touched = (id: bigint, after: string) =>
      bed.db.sql.query(`UPDATE deliveries SET updated_at = budget_started_at + $2::interval WHERE id = $1::bigint`, [
        id.toString(),
        after,
      ]);
    await touched(locked, "5 seconds");
    await touched(revived, "0 seconds");

    expect((await expire(at(LIFETIME_MS))).expired).toBe(2);
    expect(await row(locked)).toMatchObject({
      status: "failed",
      attemptCount: 0,
      lastStatusCode: null,
      lastError: null,
      lastErrorKind: "secret_unavailable",
    });
    expect(await row(revived)).toMatchObject({ status: "failed", attemptCount: 2, lastErrorKind: "expired" });
  });

  it("leaves alone what is not pending: an attempt in flight, delivered and failed deliveries", async () => {
    const delivering = await delivery({ status: "delivering", attemptCount: 1 });
    const delivered = await delivery({ status: "delivered", attemptCount: 1 });
    const failed = await delivery({ status: "failed", attemptCount: 7, lastErrorKind: "http_status" });

    expect((await expire(at(10 * LIFETIME_MS))).expired).toBe(0);
    expect((await row(delivering)).status).toBe("delivering");
    expect((await row(delivered)).status).toBe("delivered");
    expect(await row(failed)).toMatchObject({ status: "failed", lastErrorKind: "http_status" });
  });

  it("the deadline counts from each delivery's own budget start, not from the oldest", async () => {
    const older = await delivery();
    const younger = await delivery({}, at(30_000));
    expect((await expire(at(LIFETIME_MS + 29_999))).expired).toBe(1);
    expect((await row(older)).status).toBe("failed");
    expect((await row(younger)).status).toBe("pending");
    expect((await expire(at(LIFETIME_MS + 30_000))).expired).toBe(1);
    expect((await row(younger)).status).toBe("failed");
  });

  it("is bounded per call (batches, maxRows, `more`) and idempotent: a second run finds nothing", async () => {
    for (let i = 0; i < 5; i++) await delivery();
    const now = at(LIFETIME_MS);

    expect(await expire(now, { batchSize: 2, maxRows: 3 })).toMatchObject({ expired: 3, more: true });
    expect(await bed.db.delivery.count({ where: { status: "pending" } })).toBe(2);
    expect(await expire(now, { batchSize: 2, maxRows: 3 })).toMatchObject({ expired: 2, more: false });
    expect(await expire(now, { batchSize: 2, maxRows: 3 })).toEqual({ expired: 0, byEvent: {}, more: false });
    expect(await bed.db.delivery.count({ where: { status: "failed", lastErrorKind: "expired" } })).toBe(5);
  });

  it("several pods at once fail each delivery exactly once between them", async () => {
    for (let i = 0; i < 60; i++) await delivery();
    const now = at(LIFETIME_MS);
    const runs = await Promise.all([1, 2, 3].map(() => expire(now, { batchSize: 7 })));
    expect(runs.reduce((sum, run) => sum + run.expired, 0)).toBe(60);
    expect(await bed.db.delivery.count({ where: { status: "failed" } })).toBe(60);
  });

  it("removes the jobs the failed deliveries were waiting with (deferred behind the breaker, or a retry)", async () => {
    const neverTried = await delivery();
    const retrying = await delivery({ attemptCount: 2, lastErrorKind: "connection_refused" });
    const young = await delivery({}, at(LIFETIME_MS));
    await enqueueDeliveryAttempt(bed.queue, neverTried, 1, 3_600_000);
    await enqueueDeliveryAttempt(bed.queue, retrying, 3, 3_600_000);
    await enqueueDeliveryAttempt(bed.queue, young, 1, 3_600_000);

    expect((await expire(at(LIFETIME_MS))).expired).toBe(2);
    expect(await bed.queue.getJob(deliverWebhookJob.jobId(neverTried, 1))).toBeUndefined();
    expect(await bed.queue.getJob(deliverWebhookJob.jobId(retrying, 3))).toBeUndefined();
    expect(await (await bed.queue.getJob(deliverWebhookJob.jobId(young, 1)))?.getState()).toBe("delayed");
  });
});

describe("a manual retry revives an expired delivery with a fresh deadline", () => {
  it("retry: pending again, its budget restarted at the retry, not failed again until a whole lifetime later", async () => {
    const id = await delivery({ attemptCount: 1, lastErrorKind: "connection_refused" });
    await expire(at(LIFETIME_MS));
    const retriedAt = at(2 * LIFETIME_MS);

    const retried = await retryDelivery(
      { db: bed.db, queue: bed.queue, logger: silentLogger },
      { accountId: fixture.accountId, deliveryId: id, actor: testActor, now: retriedAt },
    );
    expect(retried).toMatchObject({ status: "pending", previousStatus: "failed", nextAttempt: 2 });
    expect(await row(id)).toMatchObject({ status: "pending", budgetStart: 1, budgetStartedAt: retriedAt });
    expect(await (await bed.queue.getJob(deliverWebhookJob.jobId(id, 2)))?.getState()).toBe("waiting");

    expect((await expire(new Date(retriedAt.getTime() + LIFETIME_MS - 1))).expired).toBe(0);
    expect((await row(id)).status).toBe("pending");
    expect((await expire(new Date(retriedAt.getTime() + LIFETIME_MS))).expired).toBe(1);
    expect(await row(id)).toMatchObject({ status: "failed", lastErrorKind: "expired", attemptCount: 1 });
  });

  it("retry-failed: every expired delivery back with a fresh budget start", async () => {
    const ids = [await delivery(), await delivery()];
    await expire(at(LIFETIME_MS));
    const retriedAt = at(3 * LIFETIME_MS);

    const count = await retryFailedDeliveries(
      { db: bed.db, queue: bed.queue, logger: silentLogger },
      { accountId: fixture.accountId, actor: testActor, now: retriedAt },
    );
    expect(count).toBe(2);
    for (const id of ids) {
      expect(await row(id)).toMatchObject({ status: "pending", budgetStartedAt: retriedAt });
      expect(await (await bed.queue.getJob(deliverWebhookJob.jobId(id, 1)))?.getState()).toBe("waiting");
    }
    expect((await expire(new Date(retriedAt.getTime() + LIFETIME_MS - 1))).expired).toBe(0);
  });

  it("a deferred job the expiry could not remove is brought forward by the retry, not left to its delay", async () => {
    const id = await delivery();
    await expire(at(LIFETIME_MS));
    // As if the job had been running (locked) while the expiry removed the others, then deferred again.
    await enqueueDeliveryAttempt(bed.queue, id, 1, 3_600_000, fixture.integrationId);

    await retryDelivery(
      { db: bed.db, queue: bed.queue, logger: silentLogger },
      { accountId: fixture.accountId, deliveryId: id, actor: testActor },
    );
    expect(await (await bed.queue.getJob(deliverWebhookJob.jobId(id, 1)))?.getState()).toBe("waiting");
  });
});
