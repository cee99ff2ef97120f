// Issue 21, item 3: endpoint health. A real dispatcher against a real receiver on loopback: the figures come from the
// attempts it records; an endpoint failing every attempt for WEBHOOK_DISABLE_AFTER_FAILING_MS (tiny here) is
// disabled with a stated reason, gets no attempt while disabled (its deliveries wait, past the schedule's deadline
// too), and once re-enabled by hand every delivery is delivered, nothing lost.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { enqueueAttempts } from "@gw/jobs";
import {
  PARKED_BUDGET_START,
  budgetLifetimeMs,
  enableIntegration,
  endpointHealth,
  retryFailedDeliveries,
} from "@gw/core/deliveries";
import {
  createDelivery,
  createFixture,
  eventually,
  isolatedDatabase,
  reply,
  silentLogger,
  startReceiver,
  testActor,
  type Fixture,
  type Receiver,
} from "@gw/testkit";
import type { Dispatcher } from "../src/index.ts";
import { metricsOf, openBed, type DispatcherBed } from "./support.ts";

const SCHEDULE = [100, 100, 100, 100, 100, 100];
const TIMEOUT_MS = 500;
const THRESHOLD_MS = 1_500;
const LIFETIME_MS = budgetLifetimeMs({ scheduleMs: SCHEDULE, jitter: 0, attemptTimeoutMs: TIMEOUT_MS });

const receivers: Receiver[] = [];
let bed: DispatcherBed;

beforeAll(async () => {
  bed = openBed(await isolatedDatabase());
});

afterEach(async () => {
  await bed.stopDispatchers();
  for (const receiver of receivers.splice(0)) await receiver.close();
  await bed.queue.obliterate({ force: true });
  // Each test's sweep sees only its own deliveries.
  await bed.db.delivery.deleteMany();
});

afterAll(async () => {
  await bed.close();
});

async function startDispatcher(overrides: Record<string, string> = {}): Promise<Dispatcher> {
  return bed.startDispatcher({
    WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE.join(","),
    WEBHOOK_RETRY_JITTER: "0",
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    // No breaker: every attempt reaches the endpoint, so "no attempt while disabled" is the disable's doing.
    DISPATCHER_BREAKER_FAILURES: "0",
    WEBHOOK_DISABLE_AFTER_FAILING_MS: String(THRESHOLD_MS),
    RECONCILE_INTERVAL_MS: "60000",
    ...overrides,
  });
}

async function startTrackedReceiver(status: number, body: string): Promise<Receiver> {
  const receiver = await startReceiver((_request, res) => reply(res, status, body));
  receivers.push(receiver);
  return receiver;
}

async function newDelivery(fixture: Fixture): Promise<bigint> {
  const { id } = await createDelivery(bed.db, fixture);
  await enqueueAttempts(bed.queue, [{ deliveryId: id.toString(), attempt: 1, integrationId: fixture.integrationId }]);
  return id;
}

/** PostgreSQL's percentile_cont: linear interpolation between the sorted values. */
function percentile(sorted: readonly number[], fraction: number): number {
  const position = fraction * (sorted.length - 1);
  const low = Math.floor(position);
  const high = Math.ceil(position);
  const lowValue = sorted[low] ?? 0;
  return Math.round(lowValue + ((sorted[high] ?? lowValue) - lowValue) * (position - low));
}

describe("endpoint health figures", () => {
  it("gives each window the success rate, the latency percentiles and the last error of the attempts made", async () => {
    // Every third request fails (503 with a body); the others succeed after a growing pause.
    const receiver = await startReceiver(async (_request, res, index) => {
      if (index % 3 === 2) return reply(res, 503, "manutenção programada");
      await new Promise((resolve) => setTimeout(resolve, 5 + index * 4));
      reply(res, 200, "ok");
    });
    receivers.push(receiver);
    const fixture = await createFixture(bed.db, receiver.url);
    await startDispatcher({
      WEBHOOK_RETRY_SCHEDULE_MS: "60000",
      WEBHOOK_TIMEOUT_MS: "5000",
      DISPATCHER_LOCK_DURATION_MS: "10000",
    });
    for (let i = 0; i < 9; i++) await newDelivery(fixture);
    await eventually(
      async () => (await bed.db.deliveryAttempt.count({ where: { integrationId: fixture.integrationId } })) === 9,
      {
        what: "nine attempts recorded",
      },
    );
    // An attempt two hours old counts in the day only.
    const old = await createDelivery(bed.db, fixture);
    await bed.db.deliveryAttempt.create({
      data: {
        deliveryId: old.id,
        number: 1,
        integrationId: fixture.integrationId,
        startedAt: new Date(Date.now() - 2 * 3_600_000),
        durationMs: 9_000,
        statusCode: null,
        errorKind: "timeout",
      },
    });

    const health = await endpointHealth(
      { db: bed.db },
      { accountId: fixture.accountId, integrationId: fixture.integrationId },
    );
    const attempts = await bed.db.deliveryAttempt.findMany({
      where: { integrationId: fixture.integrationId, startedAt: { gt: new Date(Date.now() - 3_600_000) } },
      orderBy: { startedAt: "desc" },
    });
    const durations = attempts.map((a) => a.durationMs).sort((a, b) => a - b);
    const failed = attempts.filter((a) => a.errorKind !== null);
    expect(failed).toHaveLength(3);
    expect(health?.last_hour).toMatchObject({
      attempts: 9,
      succeeded: 6,
      failed: 3,
      success_rate: 0.6667,
      latency_ms: {
        p50: percentile(durations, 0.5),
        p95: percentile(durations, 0.95),
        p99: percentile(durations, 0.99),
      },
      last_error: {
        at: failed[0]?.startedAt.toISOString(),
        status_code: 503,
        error_kind: "http_status",
        body: "manutenção programada",
      },
    });
    const dayDurations = [...durations, 9_000].sort((a, b) => a - b);
    expect(health?.last_day).toMatchObject({
      attempts: 10,
      succeeded: 6,
      failed: 4,
      success_rate: 0.6,
      latency_ms: { p99: percentile(dayDurations, 0.99) },
    });
    expect(health).toMatchObject({ disabled_at: null, disabled_reason: null, waiting_deliveries: 0 });
    // Another account does not see it.
    const other = await createFixture(bed.db, receiver.url);
    expect(
      await endpointHealth({ db: bed.db }, { accountId: other.accountId, integrationId: fixture.integrationId }),
    ).toBeNull();
  });
});

describe("an endpoint failing every attempt", () => {
  it("is disabled with its reason after the threshold, gets no attempt while disabled, and loses nothing once re-enabled", async () => {
    const receiver = await startTrackedReceiver(500, "fora do ar");
    const fixture = await createFixture(bed.db, receiver.url);
    const dispatcher = await startDispatcher();
    const created: bigint[] = [];

    // New events keep coming until the disable.
    const startedAt = Date.now();
    await eventually(
      async () => {
        created.push(await newDelivery(fixture));
        const row = await bed.db.integration.findUniqueOrThrow({ where: { id: fixture.integrationId } });
        return row.disabledAt !== null;
      },
      { what: "the integration disabled", timeoutMs: 15_000, intervalMs: 150 },
    );
    // Not before the threshold: the first attempt was made after startedAt.
    const integration = await bed.db.integration.findUniqueOrThrow({ where: { id: fixture.integrationId } });
    expect(integration.disabledAt?.getTime()).toBeGreaterThanOrEqual(startedAt + THRESHOLD_MS);
    expect(integration.disabledReason).toBe(
      "desativada: todas as tentativas falharam por 1,5 segundo; último erro: HTTP 500",
    );
    expect(integration.active).toBe(true);
    const audit = await bed.db.auditEntry.findMany({ where: { target: `integration:${fixture.integrationId}` } });
    expect(audit.map((entry) => [entry.action, entry.actor])).toEqual([["system.integration.disabled", "dispatcher"]]);
    expect(await metricsOf(dispatcher)).toMatch(/^gw_webhook_integrations_disabled_total 1$/m);

    // Attempts already under way at the disable finish; after that, none.
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS));
    const requestsAtDisable = receiver.requests.length;
    // More events while disabled, and a manual resend of the dead letters: all wait.
    for (let i = 0; i < 3; i++) created.push(await newDelivery(fixture));
    // A dead letter of before (its seven attempts spent), resent by hand while the integration is disabled.
    const deadLetter = await createDelivery(bed.db, fixture);
    await bed.db.delivery.update({
      where: { id: deadLetter.id },
      data: {
        status: "failed",
        attemptCount: 7,
        nextAttemptAt: null,
        lastStatusCode: 500,
        lastErrorKind: "http_status",
      },
    });
    created.push(deadLetter.id);
    const failedBefore = await bed.db.delivery.count({
      where: { integrationId: fixture.integrationId, status: "failed" },
    });
    expect(
      await retryFailedDeliveries(
        { db: bed.db, queue: bed.queue, logger: silentLogger },
        { accountId: fixture.accountId, actor: testActor },
      ),
    ).toBe(failedBefore);
    await eventually(
      async () =>
        (await bed.db.delivery.count({
          where: { integrationId: fixture.integrationId, status: "pending", nextAttemptAt: null },
        })) === created.length,
      { what: "every delivery waiting" },
    );
    // Past the schedule's deadline (counted from the disable) the sweep fails none of them.
    await new Promise((resolve) => setTimeout(resolve, LIFETIME_MS + 200));
    expect(await dispatcher.reconcileNow()).toMatchObject({ expired: 0, queued: 0 });
    expect(receiver.requests.length).toBe(requestsAtDisable);
    const waiting = await bed.db.delivery.findMany({ where: { integrationId: fixture.integrationId } });
    for (const row of waiting) {
      expect(row).toMatchObject({ status: "pending", nextAttemptAt: null });
      expect(row.budgetStartedAt.toISOString()).toBe(PARKED_BUDGET_START);
    }
    const health = await endpointHealth(
      { db: bed.db },
      { accountId: fixture.accountId, integrationId: fixture.integrationId },
    );
    expect(health).toMatchObject({
      disabled_reason: integration.disabledReason,
      waiting_deliveries: created.length,
      last_hour: { succeeded: 0, success_rate: 0, last_error: { status_code: 500, body: "fora do ar" } },
    });

    // The endpoint is fixed and someone re-enables it: every delivery is delivered, X-PT-Attempt counting on.
    receiver.setHandler((_request, res) => reply(res, 200, "ok"));
    const attemptsBefore = new Map(waiting.map((row) => [row.id, row.attemptCount]));
    const enabled = await enableIntegration(
      { db: bed.db, queue: bed.queue, logger: silentLogger },
      { accountId: fixture.accountId, integrationId: fixture.integrationId, actor: testActor },
    );
    expect(enabled).toEqual({ integrationId: fixture.integrationId, wasDisabled: true, resumed: created.length });
    await eventually(
      async () =>
        (await bed.db.delivery.count({ where: { id: { in: created }, status: "delivered" } })) === created.length,
      { what: "every delivery delivered", timeoutMs: 10_000 },
    );
    const delivered = await bed.db.delivery.findMany({ where: { id: { in: created } } });
    for (const row of delivered) expect(row.attemptCount).toBe((attemptsBefore.get(row.id) ?? -1) + 1);
    expect(await bed.db.integration.findUniqueOrThrow({ where: { id: fixture.integrationId } })).toMatchObject({
      disabledAt: null,
      disabledReason: null,
    });
    const entries = await bed.db.auditEntry.findMany({
      where: { target: `integration:${fixture.integrationId}` },
      orderBy: { id: "asc" },
    });
    expect(entries.at(-1)).toMatchObject({ action: "system.integration.enabled", actor: "test" });
    expect(entries.at(-1)?.details).toMatchObject({
      resumed: created.length,
      disabled_reason: integration.disabledReason,
    });
    // Enabling again changes nothing and audits nothing.
    expect(
      await enableIntegration(
        { db: bed.db, queue: bed.queue },
        { accountId: fixture.accountId, integrationId: fixture.integrationId, actor: testActor },
      ),
    ).toEqual({ integrationId: fixture.integrationId, wasDisabled: false, resumed: 0 });
    expect(await bed.db.auditEntry.count({ where: { target: `integration:${fixture.integrationId}` } })).toBe(2);
  });

  it("is never disabled with the threshold at 0", async () => {
    const receiver = await startTrackedReceiver(500, "erro");
    const fixture = await createFixture(bed.db, receiver.url);
    await startDispatcher({ WEBHOOK_DISABLE_AFTER_FAILING_MS: "0" });
    const until = Date.now() + THRESHOLD_MS + 800;
    while (Date.now() < until) {
      await newDelivery(fixture);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    await eventually(() => receiver.requests.length > 10, { what: "attempts made" });
    expect(
      (await bed.db.integration.findUniqueOrThrow({ where: { id: fixture.integrationId } })).disabledAt,
    ).toBeNull();
  });
});
