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
import { retryDelivery } from "@gw/core/deliveries";
import type { Dispatcher } from "../src/index.ts";
import { metricsOf, openBed, requestsOf, type DispatcherBed } from "./support.ts";

const SCHEDULE = [50, 100, 150, 200, 250, 300];

let bed: DispatcherBed;
let dispatcher: Dispatcher;
let receiver: Receiver;

beforeAll(async () => {
  bed = openBed(await isolatedDatabase());
  receiver = await startReceiver((_req, res) => reply(res, 200, "ok"));
  dispatcher = await bed.startDispatcher({ WEBHOOK_TIMEOUT_MS: "700", WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE.join(",") });
});

afterAll(async () => {
  await bed.close(receiver);
});

async function settled(id: bigint, status: string, attempts: number) {
  return eventually(
    async () => {
      const row = await bed.db.delivery.findUniqueOrThrow({
        where: { id },
        include: { attempts: { orderBy: { number: "asc" } } },
      });
      return row.status === status && row.attemptCount === attempts ? row : null;
    },
    { what: `entrega ${id} em ${status} após ${attempts} tentativas` },
  );
}

describe("dispatcher (worker in this process)", () => {
  it("delivers a queued event: signed over the stored bytes, every header, the 200's body kept", async () => {
    const fixture = await createFixture(bed.db, `${receiver.url}?conta=1`);
    const delivery = await createDelivery(bed.db, fixture);
    receiver.setHandler((_req, res) => reply(res, 200, "ignored: unknown event"));

    await enqueueDeliveryAttempt(bed.queue, delivery.id, 1);
    const row = await settled(delivery.id, "delivered", 1);

    expect(row).toMatchObject({
      lastStatusCode: 200,
      lastError: "ignored: unknown event",
      lastErrorKind: null,
      nextAttemptAt: null,
    });
    expect(row.deliveredAt).not.toBeNull();
    const [request, ...more] = requestsOf(receiver, delivery.id);
    expect(more).toHaveLength(0);
    expect(request?.path).toBe("/webhooks?conta=1");
    expect(request?.body).toBe(delivery.body);
    expect(request?.headers).toMatchObject({
      "content-type": "application/json",
      "user-agent": "Teste-Dispatcher/1.0",
      "x-pt-delivery-id": delivery.id.toString(),
      "x-pt-attempt": "1",
      "x-pt-event": "message.status",
    });
    expect(request && signatureIsValid(fixture.secret, request)).toBe(true);
  });

  it("retries a 500 seven times with growing waits, dead-letters it, and a manual retry delivers it at attempt 8", async () => {
    const fixture = await createFixture(bed.db, receiver.url);
    const delivery = await createDelivery(bed.db, fixture);
    receiver.setHandler((_req, res) => reply(res, 500, "falha interna"));

    await enqueueDeliveryAttempt(bed.queue, delivery.id, 1);
    const failed = await settled(delivery.id, "failed", 7);

    expect(failed).toMatchObject({
      lastStatusCode: 500,
      lastError: "falha interna",
      lastErrorKind: "http_status",
      nextAttemptAt: null,
      deliveredAt: null,
    });
    expect(failed.attempts.map((a) => [a.number, a.statusCode, a.errorKind])).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => [n, 500, "http_status"]),
    );
    const requests = requestsOf(receiver, delivery.id);
    expect(requests.map((r) => r.headers["x-pt-attempt"])).toEqual(["1", "2", "3", "4", "5", "6", "7"]);
    const metrics = await metricsOf(dispatcher);
    expect(metrics).toMatch(/^gw_webhook_dead_letters_total\{event="message\.status"\} 1$/m);
    expect(metrics).toMatch(
      /^gw_webhook_attempts_total\{event="message\.status",outcome="retry_scheduled",error_kind="http_status"\} 6$/m,
    );
    expect(metrics).toMatch(/^gw_webhook_queue_jobs\{state="delayed"\} \d+$/m);
    expect(new Set(requests.map((r) => r.headers["x-pt-delivery-id"]))).toEqual(new Set([delivery.id.toString()]));
    for (const request of requests) {
      expect(request.body).toBe(delivery.body);
      expect(signatureIsValid(fixture.secret, request)).toBe(true);
    }
    // The waits follow the schedule's shape (50 → 300 ms, ±20 %): loosely, since each also includes
    // queue and HTTP overhead. None is shorter than its floor, and the last three (nominal 750 ms) outweigh
    // the first three (nominal 300 ms).
    const gaps = requests.slice(1).map((r, i) => r.receivedAt - (requests[i]?.receivedAt ?? 0));
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(Math.floor((SCHEDULE[i] ?? 0) * 0.8) - 5));
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(sum(gaps.slice(3))).toBeGreaterThan(sum(gaps.slice(0, 3)));

    // A fresh timestamp must be possible: wait for the next whole second after attempt 7.
    const lastTimestamp = Number(requests[6]?.headers["x-pt-timestamp"]);
    await eventually(() => Math.floor(Date.now() / 1000) > lastTimestamp, { what: "o próximo segundo" });
    receiver.setHandler((_req, res) => reply(res, 200, "aceito"));
    const retried = await retryDelivery(
      { db: bed.db, queue: bed.queue },
      {
        accountId: fixture.accountId,
        deliveryId: delivery.id,
        actor: { id: "cli", origin: "cli", requestId: "req-retry" },
      },
    );
    expect(retried.nextAttempt).toBe(8);

    const delivered = await settled(delivery.id, "delivered", 8);
    expect(delivered).toMatchObject({ budgetStart: 7, lastStatusCode: 200, lastError: "aceito" });
    const eighth = requestsOf(receiver, delivery.id)[7];
    expect(eighth?.headers["x-pt-attempt"]).toBe("8");
    expect(eighth?.body).toBe(delivery.body);
    expect(Number(eighth?.headers["x-pt-timestamp"])).toBeGreaterThan(lastTimestamp);
    expect(eighth?.headers["x-pt-signature"]).not.toBe(requests[6]?.headers["x-pt-signature"]);
    expect(eighth && signatureIsValid(fixture.secret, eighth)).toBe(true);
    const audit = await bed.db.auditEntry.findMany({ where: { accountId: fixture.accountId } });
    expect(audit).toEqual([
      expect.objectContaining({
        actor: "cli",
        action: "webhook.retry",
        target: `delivery:${delivery.id}`,
        requestId: "req-retry",
      }),
    ]);
  });

  it("counts a 302 and an endpoint slower than WEBHOOK_TIMEOUT_MS as failures (redirect / timeout)", async () => {
    const redirecting = await createFixture(bed.db, `${receiver.url}/redirect`);
    const slow = await createFixture(bed.db, `${receiver.url}/slow`);
    const toRedirect = await createDelivery(bed.db, redirecting);
    const toSlow = await createDelivery(bed.db, slow);
    receiver.setHandler((req, res) => {
      if (req.path.startsWith("/webhooks/redirect"))
        return reply(res, 302, "", { location: "http://127.0.0.1:9/elsewhere" });
      // Sleeps well past the 700 ms attempt deadline, then would answer 200.
      const timer = setTimeout(() => reply(res, 200, "tarde demais"), 3_000);
      res.on("close", () => clearTimeout(timer));
    });

    await enqueueDeliveryAttempt(bed.queue, toRedirect.id, 1);
    await enqueueDeliveryAttempt(bed.queue, toSlow.id, 1);

    const redirected = await settled(toRedirect.id, "failed", 7);
    expect(redirected).toMatchObject({ lastStatusCode: 302, lastErrorKind: "redirect" });
    expect(redirected.attempts.every((a) => a.errorKind === "redirect")).toBe(true);
    const firstSlow = await eventually(
      () => bed.db.deliveryAttempt.findUnique({ where: { deliveryId_number: { deliveryId: toSlow.id, number: 1 } } }),
      { what: "primeira tentativa lenta registrada" },
    );
    expect(firstSlow).toMatchObject({ statusCode: null, errorKind: "timeout", responseBody: null });
    const slowRow = await bed.db.delivery.findUniqueOrThrow({ where: { id: toSlow.id } });
    expect(slowRow.lastErrorKind).toBe("timeout");
    expect(slowRow.deliveredAt).toBeNull();
  });
});
