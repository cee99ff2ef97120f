// Ordered delivery's gate and release, one attempt at a time (processDeliveryAttempt with a real receiver, Redis and
// PostgreSQL): a later delivery of a key is held while an earlier one is unsettled, and released (due now, its job
// queued) when that one is delivered or dead-lettered (attempts exhausted, or past its deadline). Other keys, and
// integrations without the option, are never held.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { deliverWebhookJob } from "@gw/jobs";
import {
  createDelivery,
  createFixture,
  reply,
  silentLogger,
  type Fixture,
  testEnv,
  isolatedDatabase,
} from "@gw/testkit";
import { failExpiredDeliveries, processDeliveryAttempt } from "../src/deliveries/index.ts";
import { openAttemptBed, type AttemptBed } from "./support/webhook-bed.ts";

let ordered: Fixture;
let status = 200;
let bed: AttemptBed;

beforeAll(async () => {
  bed = await openAttemptBed(testEnv(), {
    database: await isolatedDatabase(),
    handler: (_req, res) => reply(res, status, "ok"),
    sender: { connectTimeoutMs: 1_000, responseBodyLimit: 1_024 },
    horizonMs: 180_000,
    // One attempt only: its failure is the dead letter.
    settings: { scheduleMs: [], userAgent: "Teste/1.0", holdRecheckMs: 60_000 },
  });
  ordered = await createFixture(bed.db, bed.receiver.url);
  await bed.db.integration.update({ where: { id: ordered.integrationId }, data: { deliverInOrder: true } });
});

afterAll(async () => {
  await bed.close();
});

async function keyed(fixture: Fixture, orderingKey: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const { id } = await createDelivery(bed.db, fixture);
    await bed.db.delivery.update({ where: { id }, data: { orderingKey } });
    ids.push(String(id));
  }
  return ids;
}

const row = (id: string) => bed.db.delivery.findUniqueOrThrow({ where: { id: BigInt(id) } });
const attempt = (deliveryId: string, n = 1) => processDeliveryAttempt(bed.deps, { deliveryId, attempt: n });
const jobState = (id: string, n = 1) => bed.queue.getJob(deliverWebhookJob.jobId(id, n)).then((job) => job?.getState());

describe("ordered delivery: the gate and the release", () => {
  it("holds a later delivery of the key while the earlier is pending, then releases it when the earlier is delivered", async () => {
    status = 200;
    const [first, second, third] = await keyed(ordered, "m:wamid.gate", 3);
    if (!first || !second || !third) throw new Error("sem entregas");
    const [other] = await keyed(ordered, "m:wamid.outra", 1);
    if (!other) throw new Error("sem entrega");

    const held = await attempt(second);
    expect(held).toMatchObject({ outcome: "held", headId: first });
    expect(await row(second)).toMatchObject({ status: "pending", attemptCount: 0 });
    expect((await row(second)).heldSince).not.toBeNull();
    // The re-check time trails the head's next attempt (the release normally comes first).
    expect((await row(second)).nextAttemptAt?.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect(await attempt(third)).toMatchObject({ outcome: "held", headId: first });
    // Another message of the same integration is not held up.
    expect(await attempt(other)).toMatchObject({ outcome: "delivered" });
    expect(bed.receiver.requests).toHaveLength(1);

    expect(await attempt(first)).toMatchObject({ outcome: "delivered" });
    // Released: due now, no longer held, its job queued at once; the third still waits for it.
    const released = await row(second);
    expect(released.heldSince).toBeNull();
    expect(released.nextAttemptAt?.getTime()).toBeLessThanOrEqual(Date.now());
    expect(["waiting", "delayed", "prioritized"]).toContain(await jobState(second));
    expect((await row(third)).heldSince).not.toBeNull();
    expect(await jobState(third)).toBeUndefined();

    expect(await attempt(second)).toMatchObject({ outcome: "delivered" });
    expect((await row(third)).heldSince).toBeNull();
    expect(await attempt(third)).toMatchObject({ outcome: "delivered" });
  });

  it("lets the next one go when the head is dead-lettered: attempts exhausted, or past its deadline", async () => {
    status = 500;
    const [head, next] = await keyed(ordered, "m:wamid.morta", 2);
    if (!head || !next) throw new Error("sem entregas");
    expect(await attempt(next)).toMatchObject({ outcome: "held" });
    expect(await attempt(head)).toMatchObject({ outcome: "failed" });
    expect((await row(next)).heldSince).toBeNull();

    const [old, young] = await keyed(ordered, "m:wamid.expirada", 2);
    if (!old || !young) throw new Error("sem entregas");
    expect(await attempt(young)).toMatchObject({ outcome: "held" });
    const now = new Date();
    await bed.db.delivery.update({
      where: { id: BigInt(old) },
      data: { budgetStartedAt: new Date(now.getTime() - 120_000) },
    });
    expect(
      await failExpiredDeliveries({ db: bed.db, queue: bed.queue, logger: silentLogger }, { lifetimeMs: 60_000, now }),
    ).toMatchObject({
      expired: 1,
    });
    expect(await row(old)).toMatchObject({ status: "failed", lastErrorKind: "expired" });
    expect(await row(young)).toMatchObject({ status: "pending", heldSince: null, nextAttemptAt: now });
    expect(["waiting", "delayed", "prioritized"]).toContain(await jobState(young));
  });

  it("never holds the deliveries of an integration without the option", async () => {
    status = 200;
    const plain = await createFixture(bed.db, bed.receiver.url);
    const [first, second] = await keyed(plain, "m:wamid.sem-ordem", 2);
    if (!first || !second) throw new Error("sem entregas");
    expect(await attempt(second)).toMatchObject({ outcome: "delivered" });
    expect(await attempt(first)).toMatchObject({ outcome: "delivered" });
  });
});
