import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { enqueueDeliveryAttempt } from "@gw/jobs";
import {
  createDelivery,
  createFixture,
  eventually,
  isolatedDatabase,
  reply,
  startReceiver,
  startThrowawayRedis,
  type Receiver,
} from "@gw/testkit";
import { openBed, type DispatcherBed } from "./support.ts";

// FLUSHALL wipes every key of the server: this file uses a redis-server of its own, never the shared one.
let throwaway: Awaited<ReturnType<typeof startThrowawayRedis>>;
let bed: DispatcherBed;
let receiver: Receiver;

beforeAll(async () => {
  throwaway = await startThrowawayRedis();
  bed = openBed(await isolatedDatabase(), throwaway.url);
  receiver = await startReceiver((_req, res) => reply(res, 200, "ok"));
});

afterAll(async () => {
  await bed.close(receiver);
  await throwaway.stop();
});

async function jobCount(): Promise<number> {
  const counts = await bed.queue.getJobCounts("waiting", "delayed", "active", "prioritized");
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

/** The delivery ids the receiver answered with 200. */
const answered = new Set<string>();

describe("Redis loses every job (FLUSHALL)", () => {
  it("re-queues pending deliveries whose jobs vanished before any worker ran", async () => {
    const fixture = await createFixture(bed.db, receiver.url);
    receiver.setHandler((req, res) => {
      answered.add(String(req.headers["x-pt-delivery-id"]));
      reply(res, 200, "ok");
    });
    const deliveries: Awaited<ReturnType<typeof createDelivery>>[] = [];
    for (let i = 0; i < 5; i++) deliveries.push(await createDelivery(bed.db, fixture));
    for (const d of deliveries) await enqueueDeliveryAttempt(bed.queue, d.id, 1);
    expect(await jobCount()).toBe(5);

    await bed.redis.flushall();
    expect(await jobCount()).toBe(0);

    // Started once, and left running for the next test.
    await bed.startDispatcher({
      RECONCILE_INTERVAL_MS: "200",
      RECONCILE_GRACE_MS: "100",
      WEBHOOK_RETRY_SCHEDULE_MS: "1500,1500",
      WEBHOOK_TIMEOUT_MS: "1000",
    });

    await eventually(
      async () =>
        (await bed.db.delivery.count({ where: { id: { in: deliveries.map((d) => d.id) }, status: "delivered" } })) ===
        5,
      { what: "todas as entregas concluídas" },
    );
    for (const d of deliveries) expect(answered.has(d.id.toString())).toBe(true);
  });

  it("re-queues deliveries waiting for a retry whose delayed jobs were wiped while the dispatcher ran", async () => {
    const fixture = await createFixture(bed.db, receiver.url);
    // First attempt of each delivery fails; any later one succeeds.
    const seen = new Set<string>();
    receiver.setHandler((req, res) => {
      const id = String(req.headers["x-pt-delivery-id"]);
      if (!seen.has(id)) {
        seen.add(id);
        return reply(res, 503, "indisponível");
      }
      answered.add(id);
      reply(res, 200, "ok");
    });
    const deliveries: Awaited<ReturnType<typeof createDelivery>>[] = [];
    for (let i = 0; i < 5; i++) deliveries.push(await createDelivery(bed.db, fixture));
    const ids = deliveries.map((d) => d.id);
    for (const id of ids) await enqueueDeliveryAttempt(bed.queue, id, 1);

    // Every delivery failed once and waits (≈1.5 s) for attempt 2, whose job is delayed in Redis.
    await eventually(
      async () =>
        (await bed.db.delivery.count({ where: { id: { in: ids }, status: "pending", attemptCount: 1 } })) === 5,
      { what: "primeira tentativa de todas" },
    );
    // The retry jobs are added right after each commit.
    await eventually(async () => (await bed.queue.getJobCounts("delayed")).delayed === 5, {
      what: "os cinco jobs de retentativa",
    });

    await bed.redis.flushall();
    expect(await jobCount()).toBe(0);

    const rows = await eventually(
      async () => {
        const all = await bed.db.delivery.findMany({ where: { id: { in: ids } } });
        return all.every((r) => r.status === "delivered") ? all : null;
      },
      { what: "todas as entregas concluídas" },
    );
    expect(rows.map((r) => r.attemptCount)).toEqual([2, 2, 2, 2, 2]);
    for (const id of ids) expect(answered.has(id.toString())).toBe(true);
  });
});
