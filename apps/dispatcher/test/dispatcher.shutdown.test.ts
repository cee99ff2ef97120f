import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { ServerResponse } from "node:http";
import type { Db } from "@gw/db";
import { createRedis, createWebhookQueue, enqueueDeliveryAttempt, type Redis, type WebhookQueue } from "@gw/jobs";
import {
  createDelivery,
  createFixture,
  eventually,
  isolatedDatabase,
  reply,
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
    { LOG_LEVEL: "info", WEBHOOK_TIMEOUT_MS: "8000", DISPATCHER_LOCK_DURATION_MS: "10000" },
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

/** Start a dispatcher, queue one delivery, and return once the receiver holds its request open. */
async function attemptInFlight(): Promise<{ dispatcher: AppProcess; id: bigint; held: ServerResponse }> {
  const fixture = await createFixture(db, receiver.url);
  const delivery = await createDelivery(db, fixture);
  let held: ServerResponse | undefined;
  receiver.setHandler((req, res) => {
    // Hold this delivery's request; anything left over from an earlier test is simply accepted.
    if (req.headers["x-pt-delivery-id"] === delivery.id.toString()) held = res;
    else reply(res, 200, "ok");
  });
  const dispatcher = spawnApp("dispatcher", settings);
  children.push(dispatcher);
  await dispatcher.waitForLine("dispatcher started");
  await enqueueDeliveryAttempt(queue, delivery.id, 1);
  const res = await eventually(() => held, { what: "o receptor segurar a requisição", timeoutMs: 20_000 });
  return { dispatcher, id: delivery.id, held: res };
}

describe("dispatcher shutdown", () => {
  it("on SIGTERM stops taking jobs but lets the attempt in flight finish and commit before exiting 0", async () => {
    const { dispatcher, id, held } = await attemptInFlight();

    dispatcher.child.kill("SIGTERM");
    await dispatcher.waitForLine("stopping: no new jobs");
    // Still running: the process waits for this attempt, but takes no new job.
    expect(dispatcher.child.exitCode).toBeNull();
    const late = await createDelivery(db, await createFixture(db, receiver.url));
    await enqueueDeliveryAttempt(queue, late.id, 1);
    reply(held, 200, "entregue durante o encerramento");

    expect(await dispatcher.exited).toEqual({ code: 0, signal: null });
    // Read only after the exit: the commit happened before the process left.
    const row = await db.delivery.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: "delivered", attemptCount: 1, lastError: "entregue durante o encerramento" });
    expect(dispatcher.lines.some((line) => line.includes("dispatcher stopped"))).toBe(true);
    expect(receiver.requests.some((r) => r.headers["x-pt-delivery-id"] === late.id.toString())).toBe(false);
    expect(await db.delivery.findUniqueOrThrow({ where: { id: late.id } })).toMatchObject({
      status: "pending",
      attemptCount: 0,
    });
  }, 40_000);

  it("a second signal exits at once, leaving the attempt for another worker", async () => {
    const { dispatcher, id, held } = await attemptInFlight();

    dispatcher.child.kill("SIGTERM");
    await dispatcher.waitForLine("stopping: no new jobs");
    dispatcher.child.kill("SIGTERM");

    expect(await dispatcher.exited).toEqual({ code: 143, signal: null });
    expect(held.writableEnded).toBe(false);
    const row = await db.delivery.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: "delivering", attemptCount: 0 });
  }, 40_000);
});
