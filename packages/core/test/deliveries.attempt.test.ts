import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { deliverWebhookJob } from "@gw/jobs";
import {
  createDelivery,
  createFixture,
  freePort,
  reply,
  signatureIsValid,
  startReceiver,
  testSecretBox,
  testEnv,
  isolatedDatabase,
} from "@gw/testkit";
import { DEFAULT_CLAIM_STALE_MS, processDeliveryAttempt } from "../src/deliveries/index.ts";
import { openAttemptBed, type AttemptBed } from "./support/webhook-bed.ts";

const SCHEDULE = [1_000, 2_000, 3_000];
const BODY_LIMIT = 64;

let bed: AttemptBed;

beforeAll(async () => {
  // A database of its own: its due retries would be fair game for another file's dispatcher sweep.
  bed = await openAttemptBed(testEnv(), {
    database: await isolatedDatabase(),
    sender: { timeoutMs: 500, connectTimeoutMs: 500, responseBodyLimit: BODY_LIMIT },
    settings: { scheduleMs: SCHEDULE, jitter: 0.2 },
  });
});

afterAll(async () => {
  await bed.close();
});

async function row(id: bigint) {
  return bed.db.delivery.findUniqueOrThrow({ where: { id }, include: { attempts: { orderBy: { number: "asc" } } } });
}

describe("processDeliveryAttempt", () => {
  it("delivers on 2xx with every header, a valid signature over the stored bytes, and keeps the 200's body", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const delivery = await createDelivery(bed.db, fixture, "message.received");
    bed.receiver.setHandler((_req, res) => reply(res, 200, "ignorado: evento desconhecido"));
    const before = bed.receiver.requests.length;

    const result = await processDeliveryAttempt(bed.deps, { deliveryId: delivery.id.toString(), attempt: 1 });

    expect(result).toMatchObject({ outcome: "delivered", attempt: 1, statusCode: 200, errorKind: null });
    const request = bed.receiver.requests[before];
    expect(request).toBeDefined();
    if (!request) return;
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/webhooks");
    expect(request.body).toBe(delivery.body);
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["user-agent"]).toBe("Teste-Gateway/1.0");
    expect(request.headers["x-pt-delivery-id"]).toBe(delivery.id.toString());
    expect(request.headers["x-pt-attempt"]).toBe("1");
    expect(request.headers["x-pt-event"]).toBe("message.received");
    expect(signatureIsValid(fixture.secret, request)).toBe(true);
    expect(signatureIsValid("outro-segredo", request)).toBe(false);

    const stored = await row(delivery.id);
    expect(stored.status).toBe("delivered");
    expect(stored.attemptCount).toBe(1);
    expect(stored.deliveredAt).not.toBeNull();
    expect(stored.nextAttemptAt).toBeNull();
    expect(stored.lastStatusCode).toBe(200);
    expect(stored.lastError).toBe("ignorado: evento desconhecido");
    expect(stored.lastErrorKind).toBeNull();
    expect(stored.attempts).toHaveLength(1);
    expect(stored.attempts[0]).toMatchObject({
      number: 1,
      statusCode: 200,
      errorKind: null,
      responseBody: "ignorado: evento desconhecido",
    });
  });

  it("signs with the integration's current secret and URL at dispatch time", async () => {
    const fixture = await createFixture(bed.db, "http://127.0.0.1:1/antigo");
    const delivery = await createDelivery(bed.db, fixture);
    await bed.db.integration.update({
      where: { id: fixture.integrationId },
      data: {
        url: bed.receiver.url,
        signingSecretEncrypted: testSecretBox().seal("segredo-novo-123", {
          table: "integrations",
          id: fixture.integrationId,
          field: "signing_secret",
        }),
      },
    });
    bed.receiver.setHandler((_req, res) => reply(res, 204));
    const before = bed.receiver.requests.length;

    const result = await processDeliveryAttempt(bed.deps, { deliveryId: delivery.id.toString(), attempt: 1 });

    expect(result.outcome).toBe("delivered");
    const request = bed.receiver.requests[before];
    expect(request && signatureIsValid("segredo-novo-123", request)).toBe(true);
    expect(request && signatureIsValid(fixture.secret, request)).toBe(false);
  });

  it("schedules the next attempt on 5xx: pending, next_attempt_at within ±20 % of the schedule, job queued with that delay", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const delivery = await createDelivery(bed.db, fixture);
    bed.receiver.setHandler((_req, res) => reply(res, 503, "armazenamento indisponível"));

    const result = await processDeliveryAttempt(bed.deps, { deliveryId: delivery.id.toString(), attempt: 1 });

    expect(result).toMatchObject({ outcome: "retry_scheduled", statusCode: 503, errorKind: "http_status" });
    const stored = await row(delivery.id);
    expect(stored.status).toBe("pending");
    expect(stored.attemptCount).toBe(1);
    expect(stored.lastStatusCode).toBe(503);
    expect(stored.lastError).toBe("armazenamento indisponível");
    expect(stored.lastErrorKind).toBe("http_status");
    const gap = (stored.nextAttemptAt?.getTime() ?? 0) - stored.updatedAt.getTime();
    expect(gap).toBeGreaterThanOrEqual(800);
    expect(gap).toBeLessThanOrEqual(1_200);
    const job = await bed.queue.getJob(deliverWebhookJob.jobId(delivery.id, 2));
    // The next job names its integration, so the dispatcher can defer it without a query (fairness gate).
    expect(job?.data).toEqual({ deliveryId: delivery.id.toString(), attempt: 2, integrationId: fixture.integrationId });
    // The job runs at next_attempt_at: its delay is taken just before it is queued (a Redis round trip later, which
    // a loaded machine stretches), so it is never early and late by far less than the schedule's ±20 % jitter.
    const runsAt = (job?.timestamp ?? 0) + (job?.opts.delay ?? 0);
    const late = runsAt - (stored.nextAttemptAt?.getTime() ?? 0);
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(150);
    expect(job?.opts.delay).toBeLessThanOrEqual(1_200);
    expect(await job?.getState()).toBe("delayed");
  });

  it("fails the delivery after the last attempt of the budget (1 + schedule length), counting from budget_start", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const delivery = await createDelivery(bed.db, fixture);
    // As after one manual retry: attempts 1..5 are history, the current budget started at 5.
    await bed.db.delivery.update({ where: { id: delivery.id }, data: { attemptCount: 5, budgetStart: 5 } });
    bed.receiver.setHandler((_req, res) => reply(res, 500, "erro"));

    const outcomes: string[] = [];
    for (let attempt = 6; attempt <= 9; attempt++) {
      const result = await processDeliveryAttempt(bed.deps, { deliveryId: delivery.id.toString(), attempt });
      outcomes.push(result.outcome);
    }
    expect(outcomes).toEqual(["retry_scheduled", "retry_scheduled", "retry_scheduled", "failed"]);
    const stored = await row(delivery.id);
    expect(stored.status).toBe("failed");
    expect(stored.attemptCount).toBe(9);
    expect(stored.nextAttemptAt).toBeNull();
    expect(stored.attempts.map((a) => a.number)).toEqual([6, 7, 8, 9]);
    expect(await bed.queue.getJob(deliverWebhookJob.jobId(delivery.id, 10))).toBeUndefined();
  });

  it("treats a 302 as a failure and does not follow it", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const delivery = await createDelivery(bed.db, fixture);
    const target = await startReceiver((_req, res) => reply(res, 200, "não deveria chegar aqui"));
    bed.receiver.setHandler((_req, res) => reply(res, 302, "", { location: target.url }));
    try {
      const result = await processDeliveryAttempt(bed.deps, { deliveryId: delivery.id.toString(), attempt: 1 });
      expect(result).toMatchObject({ outcome: "retry_scheduled", statusCode: 302, errorKind: "redirect" });
      expect(target.requests).toHaveLength(0);
      const stored = await row(delivery.id);
      expect(stored).toMatchObject({ status: "pending", lastStatusCode: 302, lastErrorKind: "redirect" });
    } finally {
      await target.close();
    }
  });

  it("gives up on an endpoint slower than the attempt time-out (kind timeout, no status)", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const delivery = await createDelivery(bed.db, fixture);
    // Never answers; the attempt's 500 ms deadline must end it.
    bed.receiver.setHandler(() => undefined);

    const result = await processDeliveryAttempt(bed.deps, { deliveryId: delivery.id.toString(), attempt: 1 });

    expect(result).toMatchObject({ outcome: "retry_scheduled", statusCode: null, errorKind: "timeout" });
    const stored = await row(delivery.id);
    expect(stored).toMatchObject({
      status: "pending",
      lastStatusCode: null,
      lastError: null,
      lastErrorKind: "timeout",
    });
    expect(stored.attempts[0]).toMatchObject({ number: 1, statusCode: null, errorKind: "timeout" });
  });

  it("records a refused connection", async () => {
    const fixture = await createFixture(bed.db, `http://127.0.0.1:${await freePort()}/nada`);
    const delivery = await createDelivery(bed.db, fixture);
    const result = await processDeliveryAttempt(bed.deps, { deliveryId: delivery.id.toString(), attempt: 1 });
    expect(result).toMatchObject({ outcome: "retry_scheduled", errorKind: "connection_refused" });
  });

  it("reads at most the body limit of a huge answer, drops NUL bytes, and still counts the 2xx", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const delivery = await createDelivery(bed.db, fixture);
    // 8 MiB would be buffered whole by a naive client; we stop after BODY_LIMIT bytes.
    bed.receiver.setHandler((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("a\u0000b");
      res.write("é".repeat(40));
      const chunk = Buffer.alloc(64 * 1024, "x");
      let sent = 0;
      const pump = () => {
        while (sent < 128 && res.write(chunk)) sent++;
        if (sent < 128 && !res.destroyed) res.once("drain", pump);
        else res.end();
      };
      pump();
    });

    const result = await processDeliveryAttempt(bed.deps, { deliveryId: delivery.id.toString(), attempt: 1 });

    expect(result.outcome).toBe("delivered");
    const stored = await row(delivery.id);
    // "a\0b" (3 bytes) + 30 whole "é" (2 bytes each) + the start of the 31st cut at byte 64: dropped.
    expect(stored.lastError).toBe(`ab${"é".repeat(30)}`);
    expect(Buffer.byteLength(stored.lastError ?? "")).toBeLessThanOrEqual(BODY_LIMIT);
  });

  it("skips a stale job (attempt already made) and a job for a finished delivery, without calling the endpoint", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const delivery = await createDelivery(bed.db, fixture);
    bed.receiver.setHandler((_req, res) => reply(res, 200, "ok"));
    expect((await processDeliveryAttempt(bed.deps, { deliveryId: delivery.id.toString(), attempt: 1 })).outcome).toBe(
      "delivered",
    );
    // Requests about these deliveries only: the receiver's port may have served another suite's receiver before,
    // whose dispatcher can still retry to it.
    const ours = () =>
      bed.receiver.requests.filter((r) =>
        [delivery.id.toString(), "987654321987"].includes(String(r.headers["x-pt-delivery-id"])),
      ).length;
    const before = ours();

    expect(await processDeliveryAttempt(bed.deps, { deliveryId: delivery.id.toString(), attempt: 1 })).toMatchObject({
      outcome: "skipped",
      reason: "stale",
    });
    expect(await processDeliveryAttempt(bed.deps, { deliveryId: delivery.id.toString(), attempt: 2 })).toMatchObject({
      outcome: "skipped",
      reason: "stale",
    });
    expect(await processDeliveryAttempt(bed.deps, { deliveryId: "987654321987", attempt: 1 })).toMatchObject({
      outcome: "skipped",
      reason: "not_found",
    });
    expect(ours()).toBe(before);
    expect((await row(delivery.id)).attempts).toHaveLength(1);
  });

  it("re-runs an attempt left `delivering` by a crashed worker, overwriting its attempt row instead of failing", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const delivery = await createDelivery(bed.db, fixture);
    // The crashed worker had claimed attempt 1 longer ago than a claim holds its row (its job lock ran out); a
    // leftover attempt row for it exists.
    await bed.db.delivery.update({
      where: { id: delivery.id },
      data: { status: "delivering", updatedAt: new Date(Date.now() - DEFAULT_CLAIM_STALE_MS - 1_000) },
    });
    await bed.db.deliveryAttempt.create({
      data: {
        deliveryId: delivery.id,
        number: 1,
        startedAt: new Date(0),
        durationMs: 1,
        errorKind: "connection_reset",
      },
    });
    bed.receiver.setHandler((_req, res) => reply(res, 200, "recebido"));

    const result = await processDeliveryAttempt(bed.deps, { deliveryId: delivery.id.toString(), attempt: 1 });

    expect(result.outcome).toBe("delivered");
    const stored = await row(delivery.id);
    expect(stored.status).toBe("delivered");
    expect(stored.attempts).toHaveLength(1);
    expect(stored.attempts[0]).toMatchObject({ number: 1, statusCode: 200, errorKind: null, responseBody: "recebido" });
  });

  it("never takes a live attempt's claim: a second job of the same attempt finds nothing to claim and sends nothing", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const delivery = await createDelivery(bed.db, fixture);
    // Another worker claimed attempt 1 a moment ago and is still sending it.
    await bed.db.delivery.update({ where: { id: delivery.id }, data: { status: "delivering", updatedAt: new Date() } });
    const before = bed.receiver.requests.length;

    const result = await processDeliveryAttempt(bed.deps, { deliveryId: delivery.id.toString(), attempt: 1 });

    expect(result).toMatchObject({ outcome: "skipped", reason: "stale" });
    expect(bed.receiver.requests.length).toBe(before);
    expect(await row(delivery.id)).toMatchObject({ status: "delivering", attemptCount: 0, attempts: [] });
  });

  it("does not call an inactive integration: the delivery goes to failed with kind integration_inactive", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url, { active: false });
    const delivery = await createDelivery(bed.db, fixture);
    const before = bed.receiver.requests.length;

    const result = await processDeliveryAttempt(bed.deps, { deliveryId: delivery.id.toString(), attempt: 1 });

    expect(result.outcome).toBe("integration_inactive");
    expect(bed.receiver.requests.length).toBe(before);
    const stored = await row(delivery.id);
    expect(stored).toMatchObject({
      status: "failed",
      attemptCount: 0,
      lastErrorKind: "integration_inactive",
      nextAttemptAt: null,
    });
    expect(stored.attempts).toHaveLength(0);
  });
});
