// Group commit of the dispatcher's statements (issue 19): attempts running side by side claim their rows in one
// statement and record their results in one, and each attempt still gets its own outcome, exactly as when it ran
// alone (deliveries.attempt.test.ts holds the single path to the same rules).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDb, type Db } from "@gw/db";
import { createRedis, createWebhookQueue, type Redis, type WebhookQueue } from "@gw/jobs";
import {
  createDelivery,
  createFixture,
  reply,
  signatureIsValid,
  silentLogger,
  startReceiver,
  testEnv,
  testSecretBox,
  type Receiver,
  type ReceiverHandler,
} from "@gw/testkit";
import {
  createDeliveryScheduler,
  createDeliveryStatements,
  createWebhookSender,
  processDeliveryAttempt,
  type ProcessDeliveryDeps,
  type WebhookSender,
} from "../src/deliveries/index.ts";

let db: Db;
let redis: Redis;
let queue: WebhookQueue;
let sender: WebhookSender;
let receiver: Receiver;
let deps: ProcessDeliveryDeps;
/** Delivery ids the receiver answers 500. */
const failing = new Set<string>();
const answerByDelivery: ReceiverHandler = (req, res) =>
  failing.has(String(req.headers["x-pt-delivery-id"])) ? reply(res, 500, "falhou") : reply(res, 200, "ok");

beforeAll(async () => {
  const env = testEnv();
  db = createDb({ url: env.databaseUrl, poolSize: 4 });
  redis = createRedis(env.redisUrl);
  queue = createWebhookQueue(redis, env.redisPrefix);
  sender = createWebhookSender({
    timeoutMs: 2_000,
    connectTimeoutMs: 1_000,
    maxSockets: 20,
    responseBodyLimit: 64,
    allowPrivateNetworks: true,
  });
  receiver = await startReceiver(answerByDelivery);
  deps = {
    db,
    scheduler: createDeliveryScheduler({ queue, logger: silentLogger, horizonMs: 3_600_000 }),
    sender,
    secrets: testSecretBox(),
    logger: silentLogger,
    settings: { scheduleMs: [60_000], jitter: 0, userAgent: "Teste-Gateway/1.0" },
  };
});

afterAll(async () => {
  await receiver.close();
  sender.close();
  await queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
  await db.$disconnect();
});

function grouped(): { deps: ProcessDeliveryDeps; claims: number[]; records: number[] } {
  const claims: number[] = [];
  const records: number[] = [];
  const statements = createDeliveryStatements(db, {
    maxBatch: 50,
    maxInFlight: 1,
    onBatch: (statement, size) => (statement === "claim" ? claims : records).push(size),
  });
  return { deps: { ...deps, statements }, claims, records };
}

describe("the dispatcher's statements, grouped", () => {
  it("serve attempts running side by side in shared statements, each attempt with its own outcome and record", async () => {
    const fixture = await createFixture(db, receiver.url);
    const deliveries = [];
    for (let n = 0; n < 12; n++) deliveries.push(await createDelivery(db, fixture));
    for (const [n, delivery] of deliveries.entries()) if (n % 3 === 0) failing.add(delivery.id.toString());
    const { deps: groupedDeps, claims, records } = grouped();
    const before = receiver.requests.length;
    // The endpoint answers once all twelve requests are in: the results come back together.
    const held: (() => void)[] = [];
    receiver.setHandler((req, res) => {
      const code = failing.has(String(req.headers["x-pt-delivery-id"])) ? 500 : 200;
      held.push(() => reply(res, code, code === 200 ? "ok" : "falhou"));
      if (held.length === deliveries.length) for (const answer of held.splice(0)) answer();
    });

    const outcomes = await Promise.all(
      deliveries.map((d) => processDeliveryAttempt(groupedDeps, { deliveryId: d.id.toString(), attempt: 1 })),
    );
    receiver.setHandler(answerByDelivery);

    expect(outcomes.map((o) => o.outcome)).toEqual(
      deliveries.map((_, n) => (n % 3 === 0 ? "retry_scheduled" : "delivered")),
    );
    // The first claim ran alone; the other eleven were made while it ran and left together.
    expect(claims).toEqual([1, 11]);
    // The first result was recorded alone; the other eleven, back meanwhile, in one statement.
    expect(records).toEqual([1, 11]);
    const sent = receiver.requests.slice(before);
    expect(sent).toHaveLength(12);
    expect(sent.every((request) => signatureIsValid(fixture.secret, request))).toBe(true);
    for (const [n, delivery] of deliveries.entries()) {
      const row = await db.delivery.findUniqueOrThrow({ where: { id: delivery.id }, include: { attempts: true } });
      expect({ n, status: row.status, attempts: row.attemptCount, code: row.lastStatusCode }).toEqual({
        n,
        status: n % 3 === 0 ? "pending" : "delivered",
        attempts: 1,
        code: n % 3 === 0 ? 500 : 200,
      });
      expect(row.attempts.map((a) => [a.number, a.statusCode, a.integrationId])).toEqual([
        [1, n % 3 === 0 ? 500 : 200, fixture.integrationId],
      ]);
    }
  });

  it("gives a row claimed twice in one statement to one job only: the other is skipped and nothing goes out twice", async () => {
    const fixture = await createFixture(db, receiver.url);
    const [first, twice] = [await createDelivery(db, fixture), await createDelivery(db, fixture)];
    const { deps: groupedDeps, claims } = grouped();
    const before = receiver.requests.length;

    const outcomes = await Promise.all([
      processDeliveryAttempt(groupedDeps, { deliveryId: first.id.toString(), attempt: 1 }),
      // Both made while the first claim runs: they share the next statement.
      processDeliveryAttempt(groupedDeps, { deliveryId: twice.id.toString(), attempt: 1 }),
      processDeliveryAttempt(groupedDeps, { deliveryId: twice.id.toString(), attempt: 1 }),
    ]);

    expect(claims).toEqual([1, 2]);
    expect(outcomes.map((o) => o.outcome)).toEqual(["delivered", "delivered", "skipped"]);
    expect(outcomes[2]).toMatchObject({ reason: "stale" });
    const posts = receiver.requests.slice(before).map((r) => r.headers["x-pt-delivery-id"]);
    expect(posts.sort()).toEqual([first.id.toString(), twice.id.toString()].sort());
  });

  it("skips a job whose attempt was already made, even batched with others that go out", async () => {
    const fixture = await createFixture(db, receiver.url);
    const [done, fresh] = [await createDelivery(db, fixture), await createDelivery(db, fixture)];
    await processDeliveryAttempt(deps, { deliveryId: done.id.toString(), attempt: 1 });
    const { deps: groupedDeps } = grouped();

    const outcomes = await Promise.all([
      processDeliveryAttempt(groupedDeps, { deliveryId: fresh.id.toString(), attempt: 1 }),
      processDeliveryAttempt(groupedDeps, { deliveryId: done.id.toString(), attempt: 1 }),
    ]);

    expect(outcomes.map((o) => o.outcome)).toEqual(["delivered", "skipped"]);
    expect((await db.delivery.findUniqueOrThrow({ where: { id: done.id } })).attemptCount).toBe(1);
  });
});
