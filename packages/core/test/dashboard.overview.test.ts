import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { createDb, type Db } from "@gw/db";
import { createDelivery, createFixture, testEnv, type Fixture, testActor } from "@gw/testkit";
import { accountOverview } from "../src/dashboard/overview.ts";
import { createPanelUser } from "../src/users/users.ts";

let db: Db;

beforeAll(() => {
  db = createDb({ url: testEnv().databaseUrl, poolSize: 4 });
});
afterAll(async () => {
  await db.$disconnect();
});

const NOW = new Date();
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const HOUR = 3600_000;

async function message(accountId: string, status: string, createdAt: Date) {
  await db.message.create({
    data: {
      accountId,
      phoneNumberId: "1234",
      to: "5511999990000",
      wamid: `wamid.${randomBytes(8).toString("hex")}`,
      kind: "text",
      status,
      createdAt,
    },
  });
}

async function delivery(
  fixture: Fixture,
  fields: { status: string; createdAt?: Date; updatedAt?: Date; attemptCount?: number; lastErrorKind?: string },
) {
  const { id } = await createDelivery(db, fixture);
  await db.delivery.update({
    where: { id },
    data: {
      status: fields.status,
      createdAt: fields.createdAt ?? ago(HOUR),
      updatedAt: fields.updatedAt ?? ago(HOUR / 2),
      attemptCount: fields.attemptCount ?? 1,
      ...(fields.lastErrorKind ? { lastErrorKind: fields.lastErrorKind, lastStatusCode: 500 } : {}),
    },
  });
}

async function user(accountId: string) {
  return createPanelUser(
    { db },
    {
      accountId,
      email: `u-${randomBytes(4).toString("hex")}@exemplo.com.br`,
      name: "Ana",
      role: "viewer",
      password: "senha-de-teste-123",
      actor: testActor,
    },
  );
}

describe("accountOverview", () => {
  it("counts the last 24 h of sends and deliveries, the success rate, dead letters and this user's unread notices", async () => {
    const fixture = await createFixture(db, "http://127.0.0.1:9/ok");
    const other = await createFixture(db, "http://127.0.0.1:9/outra");
    const { accountId } = fixture;

    for (const status of ["sent", "delivered", "delivered", "read", "failed"])
      await message(accountId, status, ago(HOUR));
    await message(accountId, "delivered", ago(25 * HOUR)); // before the day
    await message(other.accountId, "sent", ago(HOUR)); // another account

    // Created the day before (first: ids grow with time): not in the 24 h, but a dead letter still counts as one.
    await delivery(fixture, {
      status: "failed",
      createdAt: ago(30 * HOUR),
      updatedAt: ago(29 * HOUR),
      attemptCount: 7,
    });
    await delivery(fixture, { status: "delivered", createdAt: ago(26 * HOUR) });
    // Created within the day: 3 delivered, 1 failed, 1 pending → rate 3 / 4.
    for (let i = 0; i < 3; i += 1) await delivery(fixture, { status: "delivered" });
    await delivery(fixture, { status: "failed", updatedAt: ago(5 * HOUR), attemptCount: 7, lastErrorKind: "timeout" });
    await delivery(fixture, { status: "pending", attemptCount: 0 });
    await delivery(other, { status: "failed", attemptCount: 7 });

    const reader = await user(accountId);
    const someoneElse = await user(accountId);
    const notices = await Promise.all(
      ["APPROVED", "REJECTED", "PAUSED"].map((event) =>
        db.templateNotice.create({
          data: { accountId, wabaId: "9", kind: "status", templateName: "pedido", event, occurredAt: NOW },
        }),
      ),
    );
    await db.templateNotice.create({
      data: {
        accountId: other.accountId,
        wabaId: "8",
        kind: "status",
        templateName: "x",
        event: "APPROVED",
        occurredAt: NOW,
      },
    });
    await db.templateNoticeRead.create({ data: { noticeId: notices[0]!.id, userId: reader.id } });
    await db.templateNoticeRead.create({ data: { noticeId: notices[1]!.id, userId: someoneElse.id } });

    const overview = await accountOverview({ db }, { accountId, userId: reader.id, now: NOW });

    expect(overview.sends).toEqual({ total: 5, by_status: { sent: 1, delivered: 2, read: 1, failed: 1 } });
    expect(overview.deliveries).toEqual({ total: 5, by_status: { delivered: 3, failed: 1, pending: 1 } });
    expect(overview.success_rate).toBeCloseTo(0.75);
    expect(overview.dead_letters).toBe(2);
    // Read by someone else is still unread for this user.
    expect(overview.unread_notices).toBe(2);
    expect(overview.since).toBe(ago(24 * HOUR).toISOString());
  });

  it("lists integrations with a recent failed attempt still being retried or dead-lettered within the hour, not older failures", async () => {
    const failing = await createFixture(db, "http://127.0.0.1:9/falhando");
    const { accountId } = failing;
    const healthy = await db.integration.create({
      data: { accountId, url: "http://127.0.0.1:9/saudavel", events: ["message.status"], signingSecret: "s" },
    });
    const quiet = await db.integration.create({
      data: { accountId, url: "http://127.0.0.1:9/antiga", events: ["message.status"], signingSecret: "s" },
    });
    const healthyFixture = { ...failing, integrationId: healthy.id };
    const quietFixture = { ...failing, integrationId: quiet.id };

    await delivery(failing, { status: "pending", attemptCount: 2, lastErrorKind: "timeout", updatedAt: ago(60_000) });
    await delivery(failing, {
      status: "delivering",
      attemptCount: 3,
      lastErrorKind: "http_status",
      updatedAt: ago(30_000),
    });
    await delivery(failing, {
      status: "failed",
      attemptCount: 7,
      lastErrorKind: "http_status",
      updatedAt: ago(10 * 60_000),
    });
    // Healthy: delivered, or pending for its first attempt.
    await delivery(healthyFixture, { status: "delivered", attemptCount: 1 });
    await delivery(healthyFixture, { status: "pending", attemptCount: 0 });
    // Failures older than the hour are not "now".
    await delivery(quietFixture, {
      status: "pending",
      attemptCount: 2,
      lastErrorKind: "timeout",
      updatedAt: ago(2 * HOUR),
    });
    await delivery(quietFixture, { status: "failed", attemptCount: 7, lastErrorKind: "dns", updatedAt: ago(2 * HOUR) });

    const overview = await accountOverview(
      { db },
      { accountId, userId: "00000000-0000-4000-8000-000000000000", now: NOW },
    );

    expect(overview.failing_integrations).toEqual([
      {
        integration_id: failing.integrationId,
        url: "http://127.0.0.1:9/falhando",
        active: true,
        retrying: 2,
        dead_lettered: 1,
        last_failure_at: ago(30_000).toISOString(),
        last_error_kind: "http_status",
        last_status_code: 500,
      },
    ]);
  });

  it("has no success rate before any delivery finished, and zeroes for an empty account", async () => {
    const fixture = await createFixture(db, "http://127.0.0.1:9/vazia");
    await delivery(fixture, { status: "pending", attemptCount: 0 });
    const overview = await accountOverview(
      { db },
      { accountId: fixture.accountId, userId: "00000000-0000-4000-8000-000000000000", now: NOW },
    );
    expect(overview).toMatchObject({
      sends: { total: 0, by_status: {} },
      deliveries: { total: 1, by_status: { pending: 1 } },
      success_rate: null,
      failing_integrations: [],
      dead_letters: 0,
      unread_notices: 0,
    });
  });
});
