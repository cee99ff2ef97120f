import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { ServerResponse } from "node:http";
import { enqueueDeliveryAttempt } from "@gw/jobs";
import {
  createDelivery,
  createFixture,
  eventually,
  isolatedDatabase,
  reply,
  startReceiver,
  type Receiver,
} from "@gw/testkit";
import { reap, spawnApp, type AppProcess } from "@gw/test-stack";
import { openBed, testSettings, type DispatcherBed } from "./support.ts";

let bed: DispatcherBed;
let receiver: Receiver;
let settings: Record<string, string>;
const children: AppProcess[] = [];

beforeAll(async () => {
  bed = openBed(await isolatedDatabase());
  settings = testSettings(bed.base, {
    LOG_LEVEL: "info",
    WEBHOOK_TIMEOUT_MS: "8000",
    DISPATCHER_LOCK_DURATION_MS: "10000",
  });
  receiver = await startReceiver((_req, res) => reply(res, 200, "ok"));
});

afterAll(async () => {
  for (const child of children) await reap(child);
  await bed.close(receiver);
});

/** Start a dispatcher, queue one delivery, and return once the receiver holds its request open. */
async function attemptInFlight(): Promise<{ dispatcher: AppProcess; id: bigint; held: ServerResponse }> {
  const fixture = await createFixture(bed.db, receiver.url);
  const delivery = await createDelivery(bed.db, fixture);
  let held: ServerResponse | undefined;
  receiver.setHandler((req, res) => {
    // Hold this delivery's request; anything left over from an earlier test is simply accepted.
    if (req.headers["x-pt-delivery-id"] === delivery.id.toString()) held = res;
    else reply(res, 200, "ok");
  });
  const dispatcher = spawnApp("dispatcher", settings);
  children.push(dispatcher);
  await dispatcher.waitForLine("dispatcher started");
  await enqueueDeliveryAttempt(bed.queue, delivery.id, 1);
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
    const late = await createDelivery(bed.db, await createFixture(bed.db, receiver.url));
    await enqueueDeliveryAttempt(bed.queue, late.id, 1);
    reply(held, 200, "entregue durante o encerramento");

    expect(await dispatcher.exited).toEqual({ code: 0, signal: null });
    // Read only after the exit: the commit happened before the process left.
    const row = await bed.db.delivery.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: "delivered", attemptCount: 1, lastError: "entregue durante o encerramento" });
    expect(dispatcher.lines.some((line) => line.includes("dispatcher stopped"))).toBe(true);
    expect(receiver.requests.some((r) => r.headers["x-pt-delivery-id"] === late.id.toString())).toBe(false);
    expect(await bed.db.delivery.findUniqueOrThrow({ where: { id: late.id } })).toMatchObject({
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
    const row = await bed.db.delivery.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: "delivering", attemptCount: 0 });
  }, 40_000);
});
