import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { enqueueDeliveryAttempt } from "@gw/jobs";
import {
  createDelivery,
  createFixture,
  eventually,
  isolatedDatabase,
  reply,
  signatureIsValid,
  startReceiver,
  type Receiver,
} from "@gw/testkit";
import { reap, spawnApp, type AppProcess } from "@gw/test-stack";
import { CRASH_SETTINGS, openBed, testSettings, type DispatcherBed } from "./support.ts";

let bed: DispatcherBed;
let receiver: Receiver;
let settings: Record<string, string>;
const children: AppProcess[] = [];

beforeAll(async () => {
  bed = openBed(await isolatedDatabase());
  settings = testSettings(bed.base, CRASH_SETTINGS);
  receiver = await startReceiver((_req, res) => reply(res, 200, "ok"));
});

afterAll(async () => {
  for (const child of children) await reap(child);
  await bed.close(receiver);
});

describe("dispatcher killed mid-attempt", () => {
  it("loses nothing: a second dispatcher re-runs the attempt and it reaches the receiver", async () => {
    const fixture = await createFixture(bed.db, receiver.url);
    const delivery = await createDelivery(bed.db, fixture);
    // The first request is held open (the dispatcher dies while waiting for it); later ones get a 200.
    receiver.setHandler((_req, res, index) => {
      if (index > 0) reply(res, 200, "recebido após a queda");
    });

    const first = spawnApp("dispatcher", settings);
    children.push(first);
    await first.waitForLine("dispatcher started");
    await enqueueDeliveryAttempt(bed.queue, delivery.id, 1);
    await eventually(() => receiver.requests.length === 1, {
      what: "o receptor segurar a primeira requisição",
      timeoutMs: 20_000,
    });
    expect((await bed.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } })).status).toBe("delivering");

    first.child.kill("SIGKILL");
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });

    const second = spawnApp("dispatcher", settings);
    children.push(second);
    const row = await eventually(
      async () => {
        const current = await bed.db.delivery.findUniqueOrThrow({
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
