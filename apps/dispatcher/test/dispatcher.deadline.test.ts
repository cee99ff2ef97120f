// Hardening 6: an endpoint that is down with its circuit breaker open. Its deliveries wait `pending` without
// spending attempts, but no longer than the retry schedule allows (spec 6.5): once the longest time the configured
// schedule can take has passed since a delivery's creation, it is `failed` with its last error, and `retry` revives
// it with a fresh deadline. Every endpoint listens on 127.0.0.1.
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { deliverWebhookJob, enqueueAttempts } from "@gw/jobs";
import { budgetLifetimeMs, retryFailedDeliveries } from "@gw/core/deliveries";
import {
  createFixture,
  eventually,
  freePort,
  isolatedDatabase,
  silentLogger,
  testActor,
  type Fixture,
} from "@gw/testkit";
import type { Dispatcher } from "../src/index.ts";
import { metricValue, metricsOf, openBed, type DispatcherBed } from "./support.ts";

const SCHEDULE = [50, 50, 50, 50, 50, 50];
const TIMEOUT_MS = 1_000;
/** 300 ms of waits (no jitter) + 7 attempts × 1 s: the deadline this dispatcher applies. */
const LIFETIME_MS = budgetLifetimeMs({ scheduleMs: SCHEDULE, jitter: 0, attemptTimeoutMs: TIMEOUT_MS });

let endpoint: Server | undefined;
let bed: DispatcherBed;

beforeAll(async () => {
  bed = openBed(await isolatedDatabase());
});

afterEach(async () => {
  await bed.stopDispatchers();
  if (endpoint) {
    endpoint.closeAllConnections();
    await new Promise<void>((resolve) => endpoint?.close(() => resolve()));
    endpoint = undefined;
  }
  await bed.queue.obliterate({ force: true });
});

afterAll(async () => {
  await bed.close();
});

async function startDispatcher(): Promise<Dispatcher> {
  return bed.startDispatcher({
    WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE.join(","),
    WEBHOOK_RETRY_JITTER: "0",
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    DISPATCHER_MAX_IN_FLIGHT_PER_INTEGRATION: "4",
    DISPATCHER_BREAKER_FAILURES: "2",
    // Open for the whole test once opened: every later job is deferred.
    DISPATCHER_BREAKER_COOLDOWN_MS: "60000",
    // The test runs the sweep itself (reconcileNow); the interval's own runs come only at start.
    RECONCILE_INTERVAL_MS: "60000",
  });
}

async function enqueue(ids: readonly bigint[], fixture: Fixture): Promise<void> {
  await enqueueAttempts(
    bed.queue,
    ids.map((id) => ({ deliveryId: id.toString(), attempt: 1, integrationId: fixture.integrationId })),
  );
}

/** An endpoint on `port` again, answering 200 and recording each request's headers. */
async function endpointBack(port: number): Promise<IncomingHttpHeaders[]> {
  const received: IncomingHttpHeaders[] = [];
  endpoint = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received.push(req.headers);
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  endpoint.listen(port, "127.0.0.1");
  await once(endpoint, "listening");
  return received;
}

describe("an endpoint down with its breaker open, against the retry schedule", () => {
  it("its deliveries fail with their last error once the schedule's longest time has passed, not before; retry revives them", async () => {
    const port = await freePort();
    const fixture = await createFixture(bed.db, `http://127.0.0.1:${port}/webhooks`);
    let dispatcher = await startDispatcher();

    // Two attempts refused: the breaker opens; their retries and every later delivery are deferred.
    const tried = await bed.deliveries(fixture, 2);
    await enqueue(tried, fixture);
    await eventually(async () => /^gw_webhook_breakers_open 1$/m.test(await metricsOf(dispatcher)), {
      what: "the breaker open",
    });
    const held = await bed.deliveries(fixture, 3);
    await enqueue(held, fixture);
    await eventually(
      async () =>
        metricValue(await metricsOf(dispatcher), /^gw_webhook_jobs_deferred_total\{reason="breaker_open"\} (\d+)$/m) >=
        5,
      { what: "the five deliveries' jobs deferred by the breaker" },
    );
    const all = [...tried, ...held];
    const starts = (await bed.db.delivery.findMany({ where: { id: { in: all } } })).map((row) =>
      row.budgetStartedAt.getTime(),
    );
    const firstDeadline = Math.min(...starts) + LIFETIME_MS;
    const lastDeadline = Math.max(...starts) + LIFETIME_MS;

    // Not before: well past the schedule's nominal 300 ms of waits, a sweep shortly before the deadline fails none.
    await eventually(() => Date.now() >= firstDeadline - 1_500, { what: "shortly before the deadline" });
    expect(await dispatcher.reconcileNow()).toMatchObject({ expired: 0 });
    expect(Date.now()).toBeLessThan(firstDeadline);
    const before = await bed.db.delivery.findMany({ where: { id: { in: all } } });
    for (const row of before) expect(row.status).toBe("pending");
    // Only the attempts that opened the breaker were made: the two that failed, plus at most one that had already
    // passed the gate while the breaker counted one failure (a retry of the first racing the second's first attempt,
    // on a loaded machine). The three held deliveries and every deferral spent nothing.
    const spent = before.reduce((sum, row) => sum + row.attemptCount, 0);
    expect(spent).toBeGreaterThanOrEqual(2);
    expect(spent).toBeLessThanOrEqual(3);
    for (const id of held) expect(before.find((row) => row.id === id)?.attemptCount).toBe(0);
    const attemptsBefore = new Map(before.map((row) => [row.id, row.attemptCount]));

    // Past it: failed, each with its last error.
    await eventually(() => Date.now() > lastDeadline, { what: "the deadline" });
    expect(await dispatcher.reconcileNow()).toMatchObject({ expired: 5 });
    const failed = await bed.db.delivery.findMany({ where: { id: { in: all } }, include: { attempts: true } });
    for (const row of failed) {
      const attempts = attemptsBefore.get(row.id) ?? -1;
      // Its own last error when it made an attempt (the endpoint refused it), `expired` when the breaker held
      // back every one of them.
      expect(row).toMatchObject(
        attempts > 0
          ? { status: "failed", attemptCount: attempts, lastErrorKind: "connection_refused", nextAttemptAt: null }
          : { status: "failed", attemptCount: 0, lastErrorKind: "expired", lastError: null, nextAttemptAt: null },
      );
      expect(row.attempts).toHaveLength(attempts);
      // Its deferred job is gone from Redis.
      expect(await bed.queue.getJob(deliverWebhookJob.jobId(row.id, attempts + 1))).toBeUndefined();
    }
    expect(failed.filter((row) => row.lastErrorKind === "expired").length).toBeGreaterThanOrEqual(3);
    // The dead-letter count says five, as for exhausted attempts.
    const text = await metricsOf(dispatcher);
    expect(text).toMatch(/^gw_webhook_dead_letters_total\{event="message\.status"\} 5$/m);
    expect(text).toMatch(/^gw_webhook_deliveries_expired_total\{event="message\.status"\} 5$/m);
    // Idempotent: another sweep finds nothing more.
    expect(await dispatcher.reconcileNow()).toMatchObject({ expired: 0 });

    // The endpoint is back; a retry revives them with a fresh deadline (their old one is long past) and they are
    // delivered, X-PT-Attempt counting on. A fresh dispatcher: this one's breaker stays open for its cool-down.
    await bed.stopDispatchers();
    const received = await endpointBack(port);
    const retriedAt = Date.now();
    expect(
      await retryFailedDeliveries(
        { db: bed.db, queue: bed.queue, logger: silentLogger },
        { accountId: fixture.accountId, actor: testActor },
      ),
    ).toBe(5);
    dispatcher = await startDispatcher();
    expect(await dispatcher.reconcileNow()).toMatchObject({ expired: 0 });
    await eventually(
      async () => (await bed.db.delivery.count({ where: { id: { in: all }, status: "delivered" } })) === 5,
      {
        what: "the revived deliveries delivered",
      },
    );
    for (const row of await bed.db.delivery.findMany({ where: { id: { in: all } } }))
      expect(row.budgetStartedAt.getTime()).toBeGreaterThanOrEqual(retriedAt);
    const attemptOf = (id: bigint) => received.find((h) => h["x-pt-delivery-id"] === id.toString())?.["x-pt-attempt"];
    expect(all.map(attemptOf)).toEqual(all.map((id) => String((attemptsBefore.get(id) ?? -1) + 1)));
    expect(held.map(attemptOf)).toEqual(["1", "1", "1"]);
  }, 60_000);
});
