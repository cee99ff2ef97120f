import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Db } from "@gw/db";
import { createRedis, createWebhookQueue, enqueueDeliveryAttempt, type Redis, type WebhookQueue } from "@gw/jobs";
import {
  createDelivery,
  createFixture,
  eventually,
  isolatedDatabase,
  reply,
  signatureIsValid,
  startReceiver,
  testEnv,
  type Receiver,
} from "@gw/testkit";
import { reap, spawnApp, type AppProcess } from "@gw/test-stack";
import { testSettings } from "./support.ts";

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let db: Db;
let redis: Redis;
let queue: WebhookQueue;
let receiver: Receiver;
let settings: Record<string, string>;
const children: AppProcess[] = [];

beforeAll(async () => {
  database = await isolatedDatabase();
  db = database.db;
  const env = testEnv();
  settings = testSettings(
    { databaseUrl: database.url, redisUrl: env.redisUrl, prefix: env.redisPrefix },
    {
      LOG_LEVEL: "info",
      WEBHOOK_TIMEOUT_MS: "3000",
      DISPATCHER_LOCK_DURATION_MS: "4000",
      DISPATCHER_STALLED_INTERVAL_MS: "1000",
      RECONCILE_INTERVAL_MS: "1000",
      RECONCILE_GRACE_MS: "1000",
    },
  );
  redis = createRedis(env.redisUrl);
  queue = createWebhookQueue(redis, env.redisPrefix);
  receiver = await startReceiver((_req, res) => reply(res, 200, "ok"));
});

afterAll(async () => {
  for (const child of children) await reap(child);
  await receiver.close();
  await queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
  await database.drop();
});

describe("dispatcher killed mid-attempt", () => {
  it("loses nothing: a second dispatcher re-runs the attempt and it reaches the receiver", async () => {
    const fixture = await createFixture(db, receiver.url);
    const delivery = await createDelivery(db, fixture);
    // The first request is held open (the dispatcher dies while waiting for it); later ones get a 200.
    receiver.setHandler((_req, res, index) => {
      if (index > 0) reply(res, 200, "recebido após a queda");
    });

    const first = spawnApp("dispatcher", settings);
    children.push(first);
    await first.waitForLine("dispatcher started");
    await enqueueDeliveryAttempt(queue, delivery.id, 1);
    await eventually(() => receiver.requests.length === 1, {
      what: "o receptor segurar a primeira requisição",
      timeoutMs: 20_000,
    });
    expect((await db.delivery.findUniqueOrThrow({ where: { id: delivery.id } })).status).toBe("delivering");

    first.child.kill("SIGKILL");
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });

    const second = spawnApp("dispatcher", settings);
    children.push(second);
    const row = await eventually(
      async () => {
        const current = await db.delivery.findUniqueOrThrow({
          where: { id: delivery.id },
          include: { attempts: true },
        });
        return current.status === "delivered" ? current : null;
      },
      { what: "a entrega ser concluída pelo segundo dispatcher", timeoutMs: 40_000 },
    );

    expect(row).toMatchObject({ attemptCount: 1, lastStatusCode: 200, lastError: "recebido após a queda" });
    expect(row.attempts).toHaveLength(1);
    expect(row.attempts[0]).toMatchObject({ number: 1, statusCode: 200 });
    // The same attempt was sent again (same delivery id and attempt number, new signature) and answered.
    const [held, rerun] = receiver.requests;
    expect(receiver.requests).toHaveLength(2);
    expect(rerun?.headers["x-pt-delivery-id"]).toBe(delivery.id.toString());
    expect(rerun?.headers["x-pt-attempt"]).toBe("1");
    expect(held?.headers["x-pt-attempt"]).toBe("1");
    expect(rerun?.body).toBe(delivery.body);
    expect(rerun && signatureIsValid(fixture.secret, rerun)).toBe(true);

    second.child.kill("SIGTERM");
    expect((await second.exited).code).toBe(0);
  }, 60_000);
});
