import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Db } from "@gw/db";
import { createRedis, createWebhookQueue, enqueueDeliveryAttempt, type Redis, type WebhookQueue } from "@gw/jobs";
import {
  createDelivery,
  createFixture,
  eventually,
  isolatedDatabase,
  reply,
  silentLogger,
  startReceiver,
  startThrowawayRedis,
  testEnv,
  type Receiver,
} from "@gw/testkit";
import { createDispatcher, type Dispatcher } from "../src/index.ts";
import { testConfig, testSettings } from "./support.ts";

// FLUSHALL wipes every key of the server: this file uses a redis-server of its own, never the shared one.
let throwaway: Awaited<ReturnType<typeof startThrowawayRedis>>;
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let db: Db;
let redis: Redis;
let queue: WebhookQueue;
let receiver: Receiver;
let settings: Record<string, string>;
let dispatcher: Dispatcher | undefined;

beforeAll(async () => {
  throwaway = await startThrowawayRedis();
  database = await isolatedDatabase();
  db = database.db;
  settings = testSettings(
    { databaseUrl: database.url, redisUrl: throwaway.url, prefix: testEnv().redisPrefix },
    {
      RECONCILE_INTERVAL_MS: "200",
      RECONCILE_GRACE_MS: "100",
      WEBHOOK_RETRY_SCHEDULE_MS: "1500,1500",
      WEBHOOK_TIMEOUT_MS: "1000",
    },
  );
  redis = createRedis(throwaway.url);
  queue = createWebhookQueue(redis, settings.REDIS_KEY_PREFIX ?? "");
  receiver = await startReceiver((_req, res) => reply(res, 200, "ok"));
});

afterAll(async () => {
  await dispatcher?.stop();
  await receiver.close();
  await queue.close();
  redis.disconnect();
  await throwaway.stop();
  await database.drop();
});

async function jobCount(): Promise<number> {
  const counts = await queue.getJobCounts("waiting", "delayed", "active", "prioritized");
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

/** The delivery ids the receiver answered with 200. */
const answered = new Set<string>();

describe("Redis loses every job (FLUSHALL)", () => {
  it("re-queues pending deliveries whose jobs vanished before any worker ran", async () => {
    const fixture = await createFixture(db, receiver.url);
    receiver.setHandler((req, res) => {
      answered.add(String(req.headers["x-pt-delivery-id"]));
      reply(res, 200, "ok");
    });
    const deliveries: Awaited<ReturnType<typeof createDelivery>>[] = [];
    for (let i = 0; i < 5; i++) deliveries.push(await createDelivery(db, fixture));
    for (const d of deliveries) await enqueueDeliveryAttempt(queue, d.id, 1);
    expect(await jobCount()).toBe(5);

    await redis.flushall();
    expect(await jobCount()).toBe(0);

    dispatcher = createDispatcher(testConfig(settings), { logger: silentLogger, db });
    await dispatcher.start();

    await eventually(
      async () =>
        (await db.delivery.count({ where: { id: { in: deliveries.map((d) => d.id) }, status: "delivered" } })) === 5,
      { what: "todas as entregas concluídas" },
    );
    for (const d of deliveries) expect(answered.has(d.id.toString())).toBe(true);
  });

  it("re-queues deliveries waiting for a retry whose delayed jobs were wiped while the dispatcher ran", async () => {
    const fixture = await createFixture(db, receiver.url);
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
    for (let i = 0; i < 5; i++) deliveries.push(await createDelivery(db, fixture));
    const ids = deliveries.map((d) => d.id);
    for (const id of ids) await enqueueDeliveryAttempt(queue, id, 1);

    // Every delivery failed once and waits (≈1.5 s) for attempt 2, whose job is delayed in Redis.
    await eventually(
      async () => (await db.delivery.count({ where: { id: { in: ids }, status: "pending", attemptCount: 1 } })) === 5,
      { what: "primeira tentativa de todas" },
    );
    // The retry jobs are added right after each commit.
    await eventually(async () => (await queue.getJobCounts("delayed")).delayed === 5, {
      what: "os cinco jobs de retentativa",
    });

    await redis.flushall();
    expect(await jobCount()).toBe(0);

    const rows = await eventually(
      async () => {
        const all = await db.delivery.findMany({ where: { id: { in: ids } } });
        return all.every((r) => r.status === "delivered") ? all : null;
      },
      { what: "todas as entregas concluídas" },
    );
    expect(rows.map((r) => r.attemptCount)).toEqual([2, 2, 2, 2, 2]);
    for (const id of ids) expect(answered.has(id.toString())).toBe(true);
  });
});
