// Issue 35, item 5: one delivery attempt was POSTed twice in a loaded run ("attempts 1, 2, 3, 3, 4…"): the sweep
// gave a second job to a row whose attempt was still being sent, and that job claimed the row again. A claim now takes
// a `delivering` row only once its claim is older than the job lock (its worker died). Raced 200 times at once: each
// attempt is sent while the sweep hands out a second job for it, which finds nothing to claim.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { deliverWebhookJob } from "@gw/jobs";
import { createDelivery, createFixture, isolatedDatabase, reply, testEnv } from "@gw/testkit";
import { processDeliveryAttempt, sweepDeliveries } from "../src/deliveries/index.ts";
import { openAttemptBed, type AttemptBed } from "./support/webhook-bed.ts";

const RACES = 200;

let bed: AttemptBed;

beforeAll(async () => {
  // A database of the file's own: its sweep reads every delivery. The endpoint holds the first attempts while the
  // sweep and the second jobs run, which a loaded machine stretched past the bed's 2 s timeout once: 30 s here.
  bed = await openAttemptBed(testEnv(), {
    database: await isolatedDatabase(),
    sender: { maxSockets: 250, timeoutMs: 30_000 },
  });
});

afterAll(async () => {
  await bed.close();
});

describe("a slow attempt and the sweep", () => {
  it(`POST each attempt once, ${RACES} times at once: the sweep's second job finds the attempt claimed`, async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const deliveries: { id: bigint }[] = [];
    for (let n = 0; n < RACES; n++) deliveries.push(await createDelivery(bed.db, fixture));
    // The endpoint holds every request until the end: each first attempt is in flight meanwhile.
    const held: (() => void)[] = [];
    bed.receiver.setHandler((_req, res) => void held.push(() => reply(res, 200, "ok")));
    const firsts = deliveries.map((d) => processDeliveryAttempt(bed.deps, { deliveryId: d.id.toString(), attempt: 1 }));
    const inFlight = () =>
      bed.db.delivery.count({ where: { id: { in: deliveries.map((d) => d.id) }, status: "delivering" } });
    while ((await inFlight()) < RACES) await new Promise((resolve) => setTimeout(resolve, 20));

    // The sweep takes every claimed row for one whose worker died (no attempt lasts longer than 0 ms here)...
    const swept = await sweepDeliveries(
      { db: bed.db, queue: bed.queue, redis: bed.redis, logger: bed.deps.logger, attemptTimeoutMs: 0 },
      { horizonMs: 0, graceMs: 0, now: new Date(Date.now() + 1_000) },
    );
    expect(swept.queued).toBe(RACES);
    // ...and each job it queued runs while the first attempt is still being sent.
    const seconds = await Promise.all(
      deliveries.map(async (d) => {
        const job = await bed.queue.getJob(deliverWebhookJob.jobId(d.id, 1));
        expect(job?.data).toMatchObject({ deliveryId: d.id.toString(), attempt: 1 });
        return processDeliveryAttempt(bed.deps, { deliveryId: d.id.toString(), attempt: 1 });
      }),
    );
    expect(new Set(seconds.map((o) => `${o.outcome}:${o.outcome === "skipped" ? o.reason : ""}`))).toEqual(
      new Set(["skipped:stale"]),
    );
    while (held.length < RACES) await new Promise((resolve) => setTimeout(resolve, 20));
    for (const answer of held.splice(0)) answer();
    expect((await Promise.all(firsts)).every((o) => o.outcome === "delivered")).toBe(true);

    const posts = new Map<string, number>();
    for (const request of bed.receiver.requests) {
      const id = `${String(request.headers["x-pt-delivery-id"])}:${String(request.headers["x-pt-attempt"])}`;
      posts.set(id, (posts.get(id) ?? 0) + 1);
    }
    expect([...posts.values()].filter((count) => count > 1)).toEqual([]);
    expect(posts.size).toBe(RACES);
    const rows = await bed.db.delivery.findMany({
      where: { id: { in: deliveries.map((d) => d.id) } },
      include: { attempts: true },
    });
    expect(rows.every((r) => r.status === "delivered" && r.attemptCount === 1 && r.attempts.length === 1)).toBe(true);
  }, 60_000);
});
