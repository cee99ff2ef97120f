// Fairness between tenants (Hardening 8): a black-holed endpoint (accepts the connection, never answers) of tenant A
// must not delay tenant B, must stop costing requests once its breaker opens, and deferring its jobs spends none of
// their attempts. Plus the fault suite: slow, redirecting, resetting and huge-body receivers at once.
// Every endpoint listens on 127.0.0.1.
import { once } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { deliverWebhookJob, enqueueAttempts } from "@gw/jobs";
import {
  createFixture,
  eventually,
  isolatedDatabase,
  reply,
  startReceiver,
  type Fixture,
  type Receiver,
} from "@gw/testkit";
import type { Dispatcher } from "../src/index.ts";
import { metricValue, metricsOf, openBed, type DispatcherBed } from "./support.ts";

/** The bound stated in docs/decisions.md: another tenant's delivery while A's endpoint swallows attempts. */
const OTHER_TENANT_BOUND_MS = 2_000;

let receiver: Receiver;
let dispatcher: Dispatcher | undefined;
const holes: BlackHole[] = [];

interface BlackHole {
  url: string;
  /** HTTP requests started against it. */
  requests(): number;
  /** Most requests open at the same time. */
  maxOpen(): number;
  close(): Promise<void>;
}

/** A TCP endpoint that accepts every connection, reads the request and never answers. */
async function blackHole(): Promise<BlackHole> {
  const sockets = new Set<Socket>();
  let requests = 0;
  let maxOpen = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    maxOpen = Math.max(maxOpen, sockets.size);
    socket.on("data", (chunk: Buffer) => {
      requests += chunk.toString("latin1").match(/^POST /gm)?.length ?? 0;
    });
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const hole: BlackHole = {
    url: `http://127.0.0.1:${port}/webhooks`,
    requests: () => requests,
    maxOpen: () => maxOpen,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  holes.push(hole);
  return hole;
}

let bed: DispatcherBed;

beforeAll(async () => {
  bed = openBed(await isolatedDatabase());
  receiver = await startReceiver((_req, res) => reply(res, 200, "ok"));
});

afterEach(async () => {
  await bed.stopDispatchers();
  dispatcher = undefined;
  // Nothing of one test runs in the next: no job left, no row the next dispatcher's sweep would pick up.
  await bed.queue.obliterate({ force: true });
  await bed.db.delivery.updateMany({
    where: { status: { in: ["pending", "delivering"] } },
    data: { status: "failed" },
  });
});

afterAll(async () => {
  await bed.close(...holes, receiver);
});

async function startDispatcher(overrides: Record<string, string>): Promise<Dispatcher> {
  dispatcher = await bed.startDispatcher({
    DISPATCHER_CONCURRENCY: "4",
    WEBHOOK_TIMEOUT_MS: "1000",
    WEBHOOK_RETRY_SCHEDULE_MS: "50,50,50,50,50,50",
    ...overrides,
  });
  return dispatcher;
}

/** Queue attempt 1 of each; half of the jobs name their integration (sweep, retries), half do not (outbox). */
async function enqueue(ids: readonly bigint[], fixture: Fixture): Promise<void> {
  await enqueueAttempts(
    bed.queue,
    ids.map((id, i) => ({
      deliveryId: id.toString(),
      attempt: 1,
      ...(i % 2 === 0 ? { integrationId: fixture.integrationId } : {}),
    })),
  );
}

async function metrics(): Promise<string> {
  if (!dispatcher) throw new Error("nenhum dispatcher em execução");
  return metricsOf(dispatcher);
}

async function allDelivered(ids: readonly bigint[]): Promise<boolean> {
  const delivered = await bed.db.delivery.count({ where: { id: { in: [...ids] }, status: "delivered" } });
  return delivered === ids.length;
}

describe("fairness between tenants", () => {
  it("in-flight cap: with A's endpoint black-holed and 40 of its deliveries queued first, B's arrive within the bound", async () => {
    // Breaker off: the cap alone must keep worker slots for B.
    await startDispatcher({ DISPATCHER_MAX_IN_FLIGHT_PER_INTEGRATION: "2", DISPATCHER_BREAKER_FAILURES: "0" });
    const hole = await blackHole();
    const tenantA = await createFixture(bed.db, hole.url);
    const tenantB = await createFixture(bed.db, receiver.url);
    const fromA = await bed.deliveries(tenantA, 40);
    const fromB = await bed.deliveries(tenantB, 5);

    await enqueue(fromA, tenantA);
    await eventually(() => hole.requests() >= 2, { what: "A's endpoint holding attempts" });
    const started = Date.now();
    await enqueue(fromB, tenantB);
    await eventually(() => allDelivered(fromB), { what: "B's deliveries", timeoutMs: 15_000 });
    const elapsed = Date.now() - started;

    expect(elapsed).toBeLessThan(OTHER_TENANT_BOUND_MS);
    // A never held more than its cap of this dispatcher's 4 slots.
    expect(hole.maxOpen()).toBeLessThanOrEqual(2);
    const text = await metrics();
    expect(metricValue(text, /^gw_webhook_jobs_deferred_total\{reason="in_flight_cap"\} (\d+)$/m)).toBeGreaterThan(0);
    // Deferring spent nothing: every attempt row of A is a request its endpoint received.
    const attemptsOfA = await bed.db.deliveryAttempt.count({
      where: { delivery: { integrationId: tenantA.integrationId } },
    });
    expect(attemptsOfA).toBeLessThanOrEqual(hole.requests());
  });

  it("circuit breaker: after 3 timeouts A's jobs are deferred without a request and without spending an attempt", async () => {
    await startDispatcher({
      DISPATCHER_MAX_IN_FLIGHT_PER_INTEGRATION: "4",
      DISPATCHER_BREAKER_FAILURES: "3",
      DISPATCHER_BREAKER_COOLDOWN_MS: "60000",
      WEBHOOK_TIMEOUT_MS: "500",
      // The retries come back well after all three timeouts opened the breaker.
      WEBHOOK_RETRY_SCHEDULE_MS: "300,300,300,300,300,300",
    });
    const hole = await blackHole();
    const tenantA = await createFixture(bed.db, hole.url);
    const tenantB = await createFixture(bed.db, receiver.url);
    const first = await bed.deliveries(tenantA, 3);

    await enqueue(first, tenantA);
    await eventually(async () => /^gw_webhook_breakers_open 1$/m.test(await metrics()), {
      what: "A's breaker open",
      timeoutMs: 5_000,
    });
    const requestsWhenOpened = hole.requests();
    expect(requestsWhenOpened).toBe(3);

    // More of A's jobs: with and without their integration in the payload, plus the 3 retries already scheduled.
    const later = await bed.deliveries(tenantA, 10);
    await enqueue(later, tenantA);
    await eventually(
      async () =>
        metricValue(await metrics(), /^gw_webhook_jobs_deferred_total\{reason="breaker_open"\} (\d+)$/m) >= 13,
      { what: "A's jobs deferred by the breaker" },
    );
    // B is not affected.
    const fromB = await bed.deliveries(tenantB, 3);
    await enqueue(fromB, tenantB);
    await eventually(() => allDelivered(fromB), { what: "B's deliveries" });

    expect(hole.requests()).toBe(requestsWhenOpened);
    const rows = await bed.db.delivery.findMany({ where: { id: { in: later } }, include: { attempts: true } });
    for (const row of rows) {
      expect(row).toMatchObject({ status: "pending", attemptCount: 0, lastErrorKind: null });
      expect(row.attempts).toHaveLength(0);
    }
    const timedOut = await bed.db.delivery.findMany({ where: { id: { in: first } } });
    for (const row of timedOut)
      expect(row).toMatchObject({ status: "pending", attemptCount: 1, lastErrorKind: "timeout" });
    // The deferred jobs wait in Redis, delayed past the cool-down; those that did not name their integration
    // now do (their next deferral costs no query).
    const unnamed = later[1];
    const job = unnamed === undefined ? undefined : await bed.queue.getJob(deliverWebhookJob.jobId(unnamed, 1));
    expect(await job?.getState()).toBe("delayed");
    expect(job?.data).toEqual({ deliveryId: unnamed?.toString(), attempt: 1, integrationId: tenantA.integrationId });
    const text = await metrics();
    expect(text).toMatch(/^gw_webhook_breaker_opened_total\{cause="failures"\} 1$/m);
  });

  it("fault suite: slow, redirecting, resetting and huge-body receivers; last_error stays bounded, B within the bound", async () => {
    await startDispatcher({
      DISPATCHER_MAX_IN_FLIGHT_PER_INTEGRATION: "1",
      WEBHOOK_RESPONSE_BODY_LIMIT: "1024",
      WEBHOOK_RETRY_SCHEDULE_MS: "20,20,20,20,20,20",
    });
    receiver.setHandler((req, res) => {
      if (req.path.startsWith("/webhooks/slow")) {
        const timer = setTimeout(() => reply(res, 200, "tarde demais"), 5_000);
        res.on("close", () => clearTimeout(timer));
      } else if (req.path.startsWith("/webhooks/redirect")) {
        reply(res, 307, "", { location: "http://127.0.0.1:9/elsewhere" });
      } else if (req.path.startsWith("/webhooks/reset")) {
        res.socket?.destroy();
      } else if (req.path.startsWith("/webhooks/huge")) {
        // 8 MB of answer, written as fast as the client reads it.
        res.writeHead(500, { "content-type": "text/plain" });
        const chunk = Buffer.alloc(64 * 1024, "x");
        let sent = 0;
        const pump = () => {
          while (sent < 128 && res.write(chunk)) sent++;
          if (sent >= 128) res.end();
          else res.once("drain", pump);
        };
        res.on("close", () => res.removeAllListeners("drain"));
        pump();
      } else {
        reply(res, 200, "ok");
      }
    });
    const faults = ["slow", "redirect", "reset", "huge"] as const;
    const fixtures = await Promise.all(faults.map((fault) => createFixture(bed.db, `${receiver.url}/${fault}`)));
    const tenantB = await createFixture(bed.db, receiver.url);
    const faulty = await Promise.all(fixtures.map((fixture) => bed.deliveries(fixture, 6)));
    const fromB = await bed.deliveries(tenantB, 5);

    for (const [index, ids] of faulty.entries()) {
      const fixture = fixtures[index];
      if (fixture) await enqueue(ids, fixture);
    }
    const started = Date.now();
    await enqueue(fromB, tenantB);
    await eventually(() => allDelivered(fromB), { what: "B's deliveries", timeoutMs: 15_000 });
    expect(Date.now() - started).toBeLessThan(OTHER_TENANT_BOUND_MS);

    // Each fault recorded with its kind; an answer is never kept beyond WEBHOOK_RESPONSE_BODY_LIMIT.
    const expected = { slow: "timeout", redirect: "redirect", reset: "connection_reset", huge: "http_status" };
    for (const [index, fault] of faults.entries()) {
      const ids = faulty[index] ?? [];
      const row = await eventually(
        async () => {
          const found = await bed.db.delivery.findFirst({ where: { id: { in: ids }, attemptCount: { gt: 0 } } });
          return found ?? null;
        },
        { what: `an attempt against the ${fault} receiver` },
      );
      expect(row.lastErrorKind).toBe(expected[fault]);
    }
    const huge = await bed.db.deliveryAttempt.findMany({ where: { deliveryId: { in: faulty[3] ?? [] } } });
    expect(huge.length).toBeGreaterThan(0);
    for (const attempt of huge) {
      expect(attempt.statusCode).toBe(500);
      expect(Buffer.byteLength(attempt.responseBody ?? "")).toBe(1024);
    }
    const longest = await bed.db.$queryRaw<{ bytes: number | null }[]>`
      SELECT max(octet_length(last_error))::int AS bytes FROM deliveries`;
    expect(longest[0]?.bytes ?? 0).toBeLessThanOrEqual(1024);
  });
});
