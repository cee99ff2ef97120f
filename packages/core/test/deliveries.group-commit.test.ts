// Group commit of the dispatcher's statements (issue 19): attempts running side by side claim their rows in one
// statement and record their results in one, and each attempt still gets its own outcome, exactly as when it ran
// alone (deliveries.attempt.test.ts holds the single path to the same rules).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDelivery, createFixture, reply, signatureIsValid, type ReceiverHandler, testEnv } from "@gw/testkit";
import { createDeliveryStatements, processDeliveryAttempt, type ProcessDeliveryDeps } from "../src/deliveries/index.ts";
import { openAttemptBed, type AttemptBed } from "./support/webhook-bed.ts";

/** Delivery ids the receiver answers 500. */
const failing = new Set<string>();
const answerByDelivery: ReceiverHandler = (req, res) =>
  failing.has(String(req.headers["x-pt-delivery-id"])) ? reply(res, 500, "falhou") : reply(res, 200, "ok");

let bed: AttemptBed;

beforeAll(async () => {
  bed = await openAttemptBed(testEnv(), {
    sender: { connectTimeoutMs: 1_000, maxSockets: 20 },
    handler: answerByDelivery,
    settings: { scheduleMs: [60_000] },
  });
});

afterAll(async () => {
  await bed.close();
});

function grouped(): { deps: ProcessDeliveryDeps; claims: number[]; records: number[] } {
  const claims: number[] = [];
  const records: number[] = [];
  const statements = createDeliveryStatements(bed.db, {
    maxBatch: 50,
    maxInFlight: 1,
    onBatch: (statement, size) => (statement === "claim" ? claims : records).push(size),
  });
  return { deps: { ...bed.deps, statements }, claims, records };
}

describe("the dispatcher's statements, grouped", () => {
  it("serve attempts running side by side in shared statements, each attempt with its own outcome and record", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const deliveries = [];
    for (let n = 0; n < 12; n++) deliveries.push(await createDelivery(bed.db, fixture));
    for (const [n, delivery] of deliveries.entries()) if (n % 3 === 0) failing.add(delivery.id.toString());
    const { deps: groupedDeps, claims, records } = grouped();
    const before = bed.receiver.requests.length;
    // The endpoint answers once all twelve requests are in: the results come back together.
    const held: (() => void)[] = [];
    bed.receiver.setHandler((req, res) => {
      const code = failing.has(String(req.headers["x-pt-delivery-id"])) ? 500 : 200;
      held.push(() => reply(res, code, code === 200 ? "ok" : "falhou"));
      if (held.length === deliveries.length) for (const answer of held.splice(0)) answer();
    });

    const outcomes = await Promise.all(
      deliveries.map((d) => processDeliveryAttempt(groupedDeps, { deliveryId: d.id.toString(), attempt: 1 })),
    );
    bed.receiver.setHandler(answerByDelivery);

    expect(outcomes.map((o) => o.outcome)).toEqual(
      deliveries.map((_, n) => (n % 3 === 0 ? "retry_scheduled" : "delivered")),
    );
    // The first claim ran alone; the other eleven were made while it ran and left together.
    expect(claims).toEqual([1, 11]);
    // The first result was recorded alone; the other eleven, back meanwhile, in one statement.
    expect(records).toEqual([1, 11]);
    const sent = bed.receiver.requests.slice(before);
    expect(sent).toHaveLength(12);
    expect(sent.every((request) => signatureIsValid(fixture.secret, request))).toBe(true);
    for (const [n, delivery] of deliveries.entries()) {
      const row = await bed.db.delivery.findUniqueOrThrow({ where: { id: delivery.id }, include: { attempts: true } });
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
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const [first, twice] = [await createDelivery(bed.db, fixture), await createDelivery(bed.db, fixture)];
    const { deps: groupedDeps, claims } = grouped();
    const before = bed.receiver.requests.length;

    const outcomes = await Promise.all([
      processDeliveryAttempt(groupedDeps, { deliveryId: first.id.toString(), attempt: 1 }),
      // Both made while the first claim runs: they share the next statement.
      processDeliveryAttempt(groupedDeps, { deliveryId: twice.id.toString(), attempt: 1 }),
      processDeliveryAttempt(groupedDeps, { deliveryId: twice.id.toString(), attempt: 1 }),
    ]);

    expect(claims).toEqual([1, 2]);
    expect(outcomes.map((o) => o.outcome)).toEqual(["delivered", "delivered", "skipped"]);
    expect(outcomes[2]).toMatchObject({ reason: "stale" });
    const posts = bed.receiver.requests.slice(before).map((r) => r.headers["x-pt-delivery-id"]);
    expect(posts.sort()).toEqual([first.id.toString(), twice.id.toString()].sort());
  });

  it("skips a job whose attempt was already made, even batched with others that go out", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const [done, fresh] = [await createDelivery(bed.db, fixture), await createDelivery(bed.db, fixture)];
    await processDeliveryAttempt(bed.deps, { deliveryId: done.id.toString(), attempt: 1 });
    const { deps: groupedDeps } = grouped();

    const outcomes = await Promise.all([
      processDeliveryAttempt(groupedDeps, { deliveryId: fresh.id.toString(), attempt: 1 }),
      processDeliveryAttempt(groupedDeps, { deliveryId: done.id.toString(), attempt: 1 }),
    ]);

    expect(outcomes.map((o) => o.outcome)).toEqual(["delivered", "skipped"]);
    expect((await bed.db.delivery.findUniqueOrThrow({ where: { id: done.id } })).attemptCount).toBe(1);
  });
});
