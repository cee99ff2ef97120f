import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDb, type Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import { createDelivery, createFixture, testEnv, type Fixture } from "@gw/testkit";
import { getDeliveryDetail, listDeliveries } from "../src/deliveries/index.ts";

let db: Db;

beforeAll(() => {
  db = createDb({ url: testEnv().databaseUrl, poolSize: 2 });
});

afterAll(async () => {
  await db.$disconnect();
});

/** A delivery of `event` created at `createdAt` with `status`. */
async function deliveryAt(fixture: Fixture, event: string, createdAt: Date, status = "delivered") {
  const delivery = await createDelivery(db, fixture, event);
  await db.delivery.update({ where: { id: delivery.id }, data: { createdAt, status } });
  return Number(delivery.id);
}

async function expectNotFound(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe("not_found");
}

describe("listDeliveries filters (the panel's queue)", () => {
  it("filters by event, status and a creation window [from, before), keyset paged newest first", async () => {
    const fixture = await createFixture(db, "http://127.0.0.1:9/x");
    const accountId = fixture.accountId;
    const day = (d: number, h = 12) => new Date(Date.UTC(2026, 0, d, h));
    const jan1 = await deliveryAt(fixture, "message.status", day(1));
    const jan2a = await deliveryAt(fixture, "message.received", day(2, 3));
    const jan2b = await deliveryAt(fixture, "message.status", day(2, 20), "failed");
    const jan3 = await deliveryAt(fixture, "message.received", day(3));

    const ids = async (input: Partial<Parameters<typeof listDeliveries>[1]>) =>
      (await listDeliveries({ db }, { accountId, limit: 50, ...input })).deliveries.map((d) => d.id);

    expect(await ids({})).toEqual([jan3, jan2b, jan2a, jan1]);
    expect(await ids({ event: "message.received" })).toEqual([jan3, jan2a]);
    expect(await ids({ event: "message.status", status: "failed" })).toEqual([jan2b]);
    expect(await ids({ createdFrom: day(2, 0), createdBefore: day(3, 0) })).toEqual([jan2b, jan2a]);
    expect(await ids({ createdFrom: day(2, 20) })).toEqual([jan3, jan2b]);
    // `createdBefore` is exclusive.
    expect(await ids({ createdBefore: day(2, 20) })).toEqual([jan2a, jan1]);
    expect(await ids({ event: "message.received", createdFrom: day(4, 0) })).toEqual([]);

    // Filters hold across pages.
    const first = await listDeliveries({ db }, { accountId, limit: 1, event: "message.status" });
    expect(first.deliveries.map((d) => d.id)).toEqual([jan2b]);
    expect(first.next_before_id).toBe(jan2b);
    const second = await listDeliveries(
      { db },
      { accountId, limit: 1, event: "message.status", beforeId: first.next_before_id! },
    );
    expect(second.deliveries.map((d) => d.id)).toEqual([jan1]);
    expect(second.next_before_id).toBeNull();

    // Another account sees none of them.
    const other = await createFixture(db, "http://127.0.0.1:9/y");
    expect((await listDeliveries({ db }, { accountId: other.accountId, limit: 50 })).deliveries).toEqual([]);
  });
});

describe("getDeliveryDetail", () => {
  it("returns every attempt in order with its bounded answer, the exact body and the parsed envelope", async () => {
    const fixture = await createFixture(db, "http://127.0.0.1:9/x");
    const delivery = await createDelivery(db, fixture);
    const started = new Date("2026-01-05T10:00:00.000Z");
    await db.deliveryAttempt.createMany({
      data: [
        {
          deliveryId: delivery.id,
          number: 2,
          startedAt: new Date(started.getTime() + 60_000),
          durationMs: 12,
          statusCode: 200,
          responseBody: "ok",
        },
        {
          deliveryId: delivery.id,
          number: 1,
          startedAt: started,
          durationMs: 10_000,
          statusCode: null,
          errorKind: "timeout",
          responseBody: null,
        },
      ],
    });
    await db.delivery.update({
      where: { id: delivery.id },
      data: { status: "delivered", attemptCount: 2, lastStatusCode: 200, lastError: "ok" },
    });

    const detail = await getDeliveryDetail(
      { db },
      { accountId: fixture.accountId, deliveryId: delivery.id.toString() },
    );
    expect(detail).toMatchObject({
      id: Number(delivery.id),
      status: "delivered",
      attempts: 2,
      last_error: "ok",
      integration_id: fixture.integrationId,
      body: delivery.body,
      envelope: JSON.parse(delivery.body) as object,
      attempts_truncated: false,
    });
    expect(detail.attempt_list).toEqual([
      {
        number: 1,
        started_at: started.toISOString(),
        duration_ms: 10_000,
        status_code: null,
        error_kind: "timeout",
        response_body: null,
      },
      {
        number: 2,
        started_at: new Date(started.getTime() + 60_000).toISOString(),
        duration_ms: 12,
        status_code: 200,
        error_kind: null,
        response_body: "ok",
      },
    ]);
  });

  it("is not_found for another account's delivery and for ids that are not ids", async () => {
    const mine = await createFixture(db, "http://127.0.0.1:9/x");
    const theirs = await createFixture(db, "http://127.0.0.1:9/y");
    const delivery = await createDelivery(db, theirs);
    await expectNotFound(getDeliveryDetail({ db }, { accountId: mine.accountId, deliveryId: delivery.id }));
    for (const bad of ["abc", "0", "-1", "1.5", "99999999999999999999", ""])
      await expectNotFound(getDeliveryDetail({ db }, { accountId: mine.accountId, deliveryId: bad }));
  });
});
