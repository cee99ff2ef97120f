// Ordered delivery and a dispatcher killed with SIGKILL: PostgreSQL holds the order, so nothing held is stranded. The
// head killed mid-attempt is re-run by another dispatcher (the sweep's stuck rows), and its settle releases the held
// one; a release lost with its worker is found by the held row's re-check time through the sweep.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { enqueueDeliveryAttempt } from "@gw/jobs";
import {
  createDelivery,
  createFixture,
  eventually,
  isolatedDatabase,
  reply,
  startReceiver,
  type Fixture,
  type Receiver,
} from "@gw/testkit";
import { reap, spawnApp, type AppProcess } from "@gw/test-stack";
import { CRASH_SETTINGS, openBed, testSettings, type DispatcherBed } from "./support.ts";

let bed: DispatcherBed;
let receiver: Receiver;
let settings: Record<string, string>;
let fixture: Fixture;
const children: AppProcess[] = [];

beforeAll(async () => {
  bed = openBed(await isolatedDatabase());
  settings = testSettings(bed.base, {
    ...CRASH_SETTINGS,
    // Long waits: a held delivery's budget runs from its creation, and a dispatcher's start can take seconds here.
    WEBHOOK_RETRY_SCHEDULE_MS: "60000,60000,60000,60000,60000,60000",
  });
  receiver = await startReceiver((_req, res) => reply(res, 200, "ok"));
  fixture = await createFixture(bed.db, receiver.url);
  await bed.db.integration.update({ where: { id: fixture.integrationId }, data: { deliverInOrder: true } });
});

afterAll(async () => {
  for (const child of children) await reap(child);
  await bed.close(receiver);
});

/** Two deliveries of one message, as the outbox writes them for an ordered integration. */
async function pair(orderingKey: string) {
  const head = await createDelivery(bed.db, fixture);
  const next = await createDelivery(bed.db, fixture);
  await bed.db.delivery.updateMany({ where: { id: { in: [head.id, next.id] } }, data: { orderingKey } });
  return { head, next };
}

function acceptedIds(): string[] {
  return receiver.requests.map((r) => String(r.headers["x-pt-delivery-id"]));
}

describe("ordered delivery across a killed dispatcher", () => {
  it("a held event is delivered after its head once another dispatcher re-runs the head's attempt", async () => {
    const { head, next } = await pair("m:wamid.queda");
    // The head's first request is held open (its dispatcher dies waiting); every later request gets a 200.
    receiver.setHandler((_req, res, index) => {
      if (index > 0) reply(res, 200, "ok");
    });
    const first = spawnApp("dispatcher", settings);
    children.push(first);
    await first.waitForLine("dispatcher started", 40_000);
    await enqueueDeliveryAttempt(bed.queue, head.id, 1);
    await eventually(() => receiver.requests.length === 1, { what: "o receptor segurar o head", timeoutMs: 20_000 });
    await enqueueDeliveryAttempt(bed.queue, next.id, 1);
    const held = await eventually(
      async () => {
        const row = await bed.db.delivery.findUniqueOrThrow({ where: { id: next.id } });
        return row.heldSince !== null ? row : null;
      },
      { what: "a segunda entrega segurada atrás do head" },
    );
    expect(held).toMatchObject({ status: "pending", attemptCount: 0 });

    first.child.kill("SIGKILL");
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });

    const second = spawnApp("dispatcher", settings);
    children.push(second);
    await eventually(
      async () => {
        const rows = await bed.db.delivery.findMany({ where: { id: { in: [head.id, next.id] } } });
        return rows.every((row) => row.status === "delivered") ? rows : null;
      },
      { what: "as duas entregas concluídas pelo segundo dispatcher", timeoutMs: 40_000 },
    );

    // The head (its held-open request, then its re-run) strictly before the held one; nothing held is left.
    expect(acceptedIds()).toEqual([String(head.id), String(head.id), String(next.id)]);
    expect((await bed.db.delivery.findUniqueOrThrow({ where: { id: next.id } })).heldSince).toBeNull();
    second.child.kill("SIGTERM");
    expect((await second.exited).code).toBe(0);
  }, 60_000);

  it("a release lost with its worker (head delivered, next still held, no job) is found through the sweep", async () => {
    receiver.requests.length = 0;
    receiver.setHandler((_req, res) => reply(res, 200, "ok"));
    const { head, next } = await pair("m:wamid.liberacao-perdida");
    const past = new Date(Date.now() - 5_000);
    // What a worker killed between recording the head's result and releasing the next one leaves behind.
    await bed.db.delivery.update({
      where: { id: head.id },
      data: { status: "delivered", attemptCount: 1, deliveredAt: past, nextAttemptAt: null },
    });
    await bed.db.delivery.update({ where: { id: next.id }, data: { heldSince: past, nextAttemptAt: past } });

    const dispatcher = spawnApp("dispatcher", settings);
    children.push(dispatcher);
    await dispatcher.waitForLine("dispatcher started", 40_000);
    const row = await eventually(
      async () => {
        const current = await bed.db.delivery.findUniqueOrThrow({ where: { id: next.id } });
        return current.status === "delivered" ? current : null;
      },
      { what: "a entrega segurada liberada pela varredura", timeoutMs: 20_000 },
    );
    expect(row).toMatchObject({ attemptCount: 1, heldSince: null });
    expect(acceptedIds()).toEqual([String(next.id)]);
    dispatcher.child.kill("SIGTERM");
    expect((await dispatcher.exited).code).toBe(0);
  }, 40_000);
});
