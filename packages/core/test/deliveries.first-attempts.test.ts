// Issue 34: the first attempts of one integration's deliveries of one commit travel in one job
// (`webhook.deliver-first-attempts`): one BullMQ job instead of one per delivery, their claims and results one
// statement each, and every delivery's own outcome as when it ran alone. The sweep still knows which row a live job
// carries, and gives one whose job is gone a job of its own.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { deliverFirstAttemptsJob, deliverWebhookJob, enqueueFirstAttempts } from "@gw/jobs";
import { createFixture, isolatedDatabase, reply, signatureIsValid, testEnv, type Fixture } from "@gw/testkit";
import {
  createDeliveryStatements,
  insertDeliveries,
  processFirstAttempts,
  sweepDeliveries,
  type AttemptAdmission,
  type AttemptGate,
  type CommittedDelivery,
  type PendingDelivery,
} from "../src/deliveries/index.ts";
import { openAttemptBed, type AttemptBed } from "./support/webhook-bed.ts";

let bed: AttemptBed;

beforeAll(async () => {
  // A database of the file's own: its sweep reads every pending delivery.
  bed = await openAttemptBed(testEnv(), { database: await isolatedDatabase(), sender: { maxSockets: 20 } });
});

afterAll(async () => {
  await bed.close();
});

/** `count` message.status deliveries of `fixture` committed together, as the outbox commits a webhook's. */
async function commitDeliveries(fixture: Fixture, count: number, other?: Fixture): Promise<CommittedDelivery[]> {
  const ids = await bed.db.sql.query<{ id: string }>(
    `SELECT nextval(pg_get_serial_sequence('deliveries', 'id'))::text AS id FROM generate_series(1, $1::int)`,
    [count + (other ? 1 : 0)],
  );
  const pending: PendingDelivery[] = ids.rows.map((row, index) => {
    const owner = other && index === count ? other : fixture;
    return {
      id: row.id,
      accountId: owner.accountId,
      integrationId: owner.integrationId,
      event: "message.status",
      data: { message_id: `wamid.lote.${row.id}`, status: "delivered" },
    };
  });
  return insertDeliveries(bed.db.sql, pending);
}

async function rowsOf(committed: readonly CommittedDelivery[]) {
  return bed.db.delivery.findMany({
    where: { id: { in: committed.map((c) => BigInt(c.deliveryId)) } },
    include: { attempts: true },
    orderBy: { id: "asc" },
  });
}

describe("a commit's first attempts", () => {
  it("share one job per integration, in creation order; a delivery alone in its commit keeps a job of its own", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const alone = await createFixture(bed.db, bed.receiver.url);
    const committed = await commitDeliveries(fixture, 3, alone);
    const [first, second, third, lone] = committed;
    if (!first || !second || !third || !lone) throw new Error("four deliveries expected");

    expect(committed.map((c) => c.batchId)).toEqual([first.deliveryId, first.deliveryId, first.deliveryId, null]);
    const rows = await bed.db.delivery.findMany({
      where: { id: { in: committed.map((c) => BigInt(c.deliveryId)) } },
      orderBy: { id: "asc" },
    });
    expect(rows.map((r) => r.batchId?.toString() ?? null)).toEqual(committed.map((c) => c.batchId));

    await enqueueFirstAttempts(bed.queue, committed);
    const batch = await bed.queue.getJob(deliverFirstAttemptsJob.jobId(first.deliveryId));
    expect(batch?.name).toBe(deliverFirstAttemptsJob.name);
    expect(batch?.data).toMatchObject({
      integrationId: fixture.integrationId,
      deliveryIds: [first.deliveryId, second.deliveryId, third.deliveryId],
    });
    const single = await bed.queue.getJob(deliverWebhookJob.jobId(lone.deliveryId, 1));
    expect(single?.data).toMatchObject({ deliveryId: lone.deliveryId, attempt: 1, integrationId: alone.integrationId });
    // None of the batch's deliveries got a job of its own.
    expect(await bed.queue.getJob(deliverWebhookJob.jobId(second.deliveryId, 1))).toBeUndefined();
    await bed.queue.obliterate({ force: true });
  });

  it("are claimed in one statement and recorded in one, each delivered and signed as alone", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const committed = await commitDeliveries(fixture, 6);
    const claims: number[] = [];
    const records: number[] = [];
    const statements = createDeliveryStatements(bed.db, {
      maxBatch: 50,
      maxInFlight: 2,
      onBatch: (statement, size) => (statement === "claim" ? claims : records).push(size),
    });
    const before = bed.receiver.requests.length;

    const outcome = await processFirstAttempts(
      { ...bed.deps, statements },
      { integrationId: fixture.integrationId, deliveryIds: committed.map((c) => c.deliveryId) },
    );

    expect(outcome.kind).toBe("done");
    expect(outcome.outcomes.map((o) => o.outcome)).toEqual(committed.map(() => "delivered"));
    expect(claims).toEqual([6]);
    expect(records).toEqual([6]);
    const sent = bed.receiver.requests.slice(before);
    expect(sent.map((r) => r.headers["x-pt-delivery-id"]).sort()).toEqual(committed.map((c) => c.deliveryId).sort());
    expect(sent.every((r) => signatureIsValid(fixture.secret, r) && r.headers["x-pt-attempt"] === "1")).toBe(true);
    for (const row of await rowsOf(committed)) {
      expect({ status: row.status, attempts: row.attempts.map((a) => [a.number, a.statusCode]) }).toEqual({
        status: "delivered",
        attempts: [[1, 200]],
      });
    }
  });

  it("go out in waves of the integration's room, the job waiting for its own slots; what others hold back is handed back", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const committed = await commitDeliveries(fixture, 5);
    // A gate with room for two at a time; a third `enter` is refused, and waiting is allowed once.
    let inFlight = 0;
    let waits = 0;
    const refusal: AttemptAdmission = { admitted: false, reason: "in_flight_cap", retryAt: new Date(Date.now() + 500) };
    const gate: AttemptGate = {
      enter: () => {
        if (inFlight >= 2) return refusal;
        inFlight++;
        return { admitted: true, leave: () => void inFlight-- };
      },
      room: () => 2 - inFlight,
      // Told once that a slot freed (after the other job's requests end), and no more.
      whenRoom: () => new Promise((resolve) => setTimeout(() => resolve(waits++ === 0), 60)),
    };
    const waves: number[] = [];
    bed.receiver.setHandler((_req, res) => {
      waves.push(inFlight);
      reply(res, 200, "ok");
    });
    // Another job of the integration holds both slots from the start: this one waits once, then is handed back.
    inFlight = 2;
    setTimeout(() => (inFlight = 0), 50);
    const first = await processFirstAttempts(
      { ...bed.deps, gate },
      { integrationId: fixture.integrationId, deliveryIds: committed.map((c) => c.deliveryId) },
    );
    bed.receiver.setHandler((_req, res) => reply(res, 200, "ok"));

    // It waited for room once, then sent in waves of two until the gate's room was all it could get.
    expect(first.kind).toBe("done");
    expect(first.outcomes.map((o) => o.outcome)).toEqual(committed.map(() => "delivered"));
    expect(Math.max(...waves)).toBeLessThanOrEqual(2);

    // With every slot held by others and no more waiting allowed, nothing is claimed: the job is deferred whole.
    const more = await commitDeliveries(fixture, 3);
    inFlight = 2;
    const held = await processFirstAttempts(
      { ...bed.deps, gate },
      { integrationId: fixture.integrationId, deliveryIds: more.map((c) => c.deliveryId) },
    );
    inFlight = 0;
    expect(held).toMatchObject({
      kind: "deferred",
      reason: "in_flight_cap",
      retryAt: refusal.retryAt,
      remaining: { integrationId: fixture.integrationId, deliveryIds: more.map((c) => c.deliveryId) },
    });
    expect((await rowsOf(more)).map((r) => [r.status, r.attemptCount])).toEqual(more.map(() => ["pending", 0]));
  });
});

describe("the sweep and a job of several first attempts", () => {
  it("leaves the rows a live job carries alone, and gives each a job of its own once that job is gone", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const committed = await commitDeliveries(fixture, 3);
    await enqueueFirstAttempts(bed.queue, committed);
    // Overdue past the grace: only a job the sweep can see keeps it from queueing them.
    await bed.db.sql.query(
      `UPDATE deliveries SET next_attempt_at = now() - interval '10 minutes' WHERE id = ANY($1::bigint[])`,
      [committed.map((c) => c.deliveryId)],
    );
    const sweep = () =>
      sweepDeliveries(
        { db: bed.db, queue: bed.queue, redis: bed.redis, logger: bed.deps.logger, attemptTimeoutMs: 1_000 },
        { horizonMs: 0, graceMs: 60_000 },
      );

    expect((await sweep()).queued).toBe(0);

    const [first] = committed;
    await bed.queue.remove(deliverFirstAttemptsJob.jobId(first?.deliveryId ?? ""));
    expect((await sweep()).queued).toBe(3);
    for (const c of committed)
      expect((await bed.queue.getJob(deliverWebhookJob.jobId(c.deliveryId, 1)))?.data).toMatchObject({
        deliveryId: c.deliveryId,
        attempt: 1,
      });
    await bed.queue.obliterate({ force: true });
  });
});
