import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "@jest/globals";
import { verifyMetaSignature } from "@gw/signer";
import { eventually } from "@gw/testkit";
import {
  RETRY_WAITS_MS,
  RETRY_WINDOW_MS,
  retryWaitMs,
  type RunningSandbox,
  type SandboxOptions,
  type WebhookRecord,
} from "../src/index.ts";
import {
  APP_SECRET,
  control,
  pause,
  PHONE_ID,
  pendingOf,
  sendMessage,
  start,
  startReceiver,
  startSilentReceiver,
  statusesOf,
  template,
  type ReceivedWebhook,
} from "./helpers.ts";

const TO = "5511988887777";
const DAY = 24 * 60 * 60 * 1000;

const inbound = (base: string, text = "oi") =>
  control<{ id: string; webhook_status: number | null }>(base, "/inbound", {
    phone_number_id: PHONE_ID,
    from: TO,
    type: "text",
    text,
  });

const webhooks = async (base: string) => (await control<WebhookRecord[]>(base, "/webhooks")).body;

/** Statuses of one POST, as `status` strings. */
const kinds = (hook: ReceivedWebhook | undefined) => statusesOf(hook ? [hook] : []).map((s) => s.status);

describe("the redelivery schedule", () => {
  it("waits 1 s, 5 s, 15 s, 1 min, 5 min, 15 min, 1 h, 3 h, 6 h, 12 h, then a day, six times", () => {
    const minute = 60_000;
    const hour = 60 * minute;
    expect(RETRY_WAITS_MS).toEqual([
      1000,
      5000,
      15_000,
      minute,
      5 * minute,
      15 * minute,
      hour,
      3 * hour,
      6 * hour,
      12 * hour,
      DAY,
      DAY,
      DAY,
      DAY,
      DAY,
      DAY,
    ]);
    // Decreasing frequency: every wait at least as long as the one before, and all of them within 7 days.
    for (let i = 1; i < RETRY_WAITS_MS.length; i++) {
      expect(RETRY_WAITS_MS[i]).toBeGreaterThanOrEqual(RETRY_WAITS_MS[i - 1] ?? Infinity);
    }
    expect(RETRY_WAITS_MS.reduce((sum, wait) => sum + wait, 0)).toBeLessThan(RETRY_WINDOW_MS);
    expect(RETRY_WINDOW_MS).toBe(7 * DAY);
  });

  it("scales every wait, jitters it by at most 10 %, never goes past 7 days and ends after the last wait", () => {
    expect(retryWaitMs(1, 0, 1, 0.5)).toBe(1000);
    expect(retryWaitMs(2, 1000, 0.001, 0.5)).toBeCloseTo(5, 9);
    expect(retryWaitMs(1, 0, 1, 0)).toBeCloseTo(900, 9);
    expect(retryWaitMs(1, 0, 1, 0.999_999)).toBeCloseTo(1100, 3);
    // The last planned wait, late: clipped to what is left of the 7 days.
    expect(retryWaitMs(16, 7 * DAY - 1000, 1, 0.5)).toBe(1000);
    expect(retryWaitMs(3, 7 * DAY, 1, 0.5)).toBeNull();
    expect(retryWaitMs(RETRY_WAITS_MS.length + 1, 0, 1, 0.5)).toBeNull();
  });

  it("always plans 1 + 16 POSTs, the last at most 7 days after the first, whatever the jitter", () => {
    for (const random of [0, 0.5, 0.999_999]) {
      let attempts = 1;
      let planned = 0;
      for (let wait = retryWaitMs(attempts, planned, 1, random); wait !== null;) {
        attempts += 1;
        planned += wait;
        wait = retryWaitMs(attempts, planned, 1, random);
      }
      expect(attempts).toBe(1 + RETRY_WAITS_MS.length);
      expect(planned).toBeLessThanOrEqual(RETRY_WINDOW_MS);
      expect(planned).toBeGreaterThan(6 * DAY);
    }
  });
});

describe("webhook redelivery", () => {
  const open: { close(): Promise<void> }[] = [];
  async function setUp(
    answer: number | ((nth: number) => number),
    options: Partial<SandboxOptions>,
  ): Promise<{ sandbox: RunningSandbox; receiver: Awaited<ReturnType<typeof startReceiver>> }> {
    const receiver = await startReceiver(answer);
    const sandbox = await start({ webhookUrl: receiver.url, ...options });
    open.push(sandbox, receiver);
    return { sandbox, receiver };
  }
  afterEach(async () => {
    for (const item of open.splice(0).reverse()) await item.close();
  });

  it("sends the same bytes with the same signature after 503, 503 at growing gaps, listed as pending meanwhile", async () => {
    const { sandbox, receiver } = await setUp((nth) => (nth <= 2 ? 503 : 200), {
      autoStatuses: false,
      // Waits of 500 ms, then 2.5 s: the pending list is read well before the first redelivery on a loaded machine.
      webhookRetryScale: 0.5,
    });
    const first = await inbound(sandbox.url, "Quero saber do meu pedido");
    expect(first.body.webhook_status).toBe(503);

    const [pending] = await pendingOf(sandbox.url);
    expect(pending).toMatchObject({
      kind: "inbound",
      source: "control",
      attempts: 1,
      last_status: 503,
      last_error: null,
      url: receiver.url,
      held_statuses: 0,
      summary: { phone_number_id: PHONE_ID, statuses: [], messages: [{ id: first.body.id, from: TO, type: "text" }] },
    });
    expect(Date.parse(pending?.next_attempt_at ?? "")).toBeGreaterThan(Date.parse(pending?.first_attempt_at ?? ""));

    // After the second refusal it is still pending, with two attempts.
    await receiver.waitFor((all) => all.length === 2);
    const second = await eventually(async () => {
      const [item] = await pendingOf(sandbox.url);
      return item?.attempts === 2 && item.next_attempt_at !== null ? item : undefined;
    });
    expect(second).toMatchObject({ id: pending?.id, last_status: 503 });

    const hooks = await receiver.waitFor((all) => all.length === 3);
    const [a, b, c] = hooks.map((h) => h.at);
    for (const hook of hooks) {
      expect(hook.raw.equals(hooks[0]?.raw ?? Buffer.alloc(0))).toBe(true);
      expect(hook.headers["x-hub-signature-256"]).toBe(hooks[0]?.headers["x-hub-signature-256"]);
      expect(verifyMetaSignature(APP_SECRET, hook.raw, String(hook.headers["x-hub-signature-256"]))).toBe(true);
    }
    const gap1 = (b ?? 0) - (a ?? 0);
    const gap2 = (c ?? 0) - (b ?? 0);
    expect(gap1).toBeGreaterThanOrEqual(445); // 500 ms -10 %
    expect(gap2).toBeGreaterThanOrEqual(2245); // 2.5 s -10 %
    expect(gap2).toBeGreaterThan(gap1);

    expect(await eventually(async () => ((await pendingOf(sandbox.url)).length === 0 ? true : undefined))).toBe(true);
    const records = await eventually(async () => {
      const all = await webhooks(sandbox.url);
      return all.length === 3 && all[2]?.status === 200 ? all : undefined;
    });
    expect(records.map((r) => [r.attempt, r.status, r.delivery_id])).toEqual([
      [1, 503, pending?.id],
      [2, 503, pending?.id],
      [3, 200, pending?.id],
    ]);
    expect(new Set(records.map((r) => r.signature)).size).toBe(1);
  });

  it("holds a message's later statuses behind its earlier one until that one is redelivered", async () => {
    const { sandbox, receiver } = await setUp((nth) => (nth === 1 ? 503 : 200), {
      statusDelaysMs: { sent: 0, delivered: 10, read: 20 },
      webhookRetryScale: 0.5, // `sent` again after 500 ms; delivered and read are due long before
    });
    const answer = await sendMessage(sandbox.url, template(TO, "hello_world", [], "en_US"));
    const wamid = answer.body.messages?.[0]?.id;

    const pending = await eventually(async () => {
      const [item] = await pendingOf(sandbox.url);
      return item?.held_statuses === 2 ? item : undefined;
    });
    expect(pending).toMatchObject({ kind: "statuses", source: "auto", attempts: 1, last_status: 503 });
    expect(pending.summary.statuses).toEqual([{ id: wamid, status: "sent", recipient_id: TO }]);
    expect(receiver.received).toHaveLength(1);

    const hooks = await receiver.waitFor((all) => statusesOf(all).some((s) => s.status === "read"));
    expect(hooks.map((h) => [h.status, ...kinds(h)])).toEqual([
      [503, "sent"],
      [200, "sent"],
      [200, "delivered"],
      [200, "read"],
    ]);
  });

  it("stops redelivering on reset: nothing pending, nothing more posted", async () => {
    const { sandbox, receiver } = await setUp(503, {
      statusDelaysMs: { sent: 0, delivered: 0, read: 0 },
      // Redeliveries due 450–550 ms after the first POSTs: the reset below comes well before them on a loaded machine.
      webhookRetryScale: 0.5,
    });
    await inbound(sandbox.url);
    await sendMessage(sandbox.url, template(TO, "hello_world", [], "en_US"));
    expect(await eventually(async () => ((await pendingOf(sandbox.url)).length === 2 ? true : undefined))).toBe(true);
    const before = receiver.received.length;

    expect((await control(sandbox.url, "/reset", {})).status).toBe(200);
    expect(await pendingOf(sandbox.url)).toEqual([]);
    await pause(800); // the first redeliveries were due after 450–550 ms
    expect(receiver.received).toHaveLength(before);
    expect(await pendingOf(sandbox.url)).toEqual([]);
  });

  it("stops redelivering at shutdown", async () => {
    const refusing = await startReceiver(503);
    open.push(refusing);
    const sandbox = await start({ webhookUrl: refusing.url, autoStatuses: false, webhookRetryScale: 0.5 });
    await inbound(sandbox.url);
    expect(await pendingOf(sandbox.url)).toHaveLength(1);
    await sandbox.close();
    await pause(800); // the redelivery was due after 450–550 ms
    expect(refusing.received).toHaveLength(1);
  });

  it("ends a POST in flight at shutdown instead of waiting for its timeout", async () => {
    const silent = await startSilentReceiver();
    open.push(silent);
    const sandbox = await start({ webhookUrl: silent.url, autoStatuses: false });
    const hanging = inbound(sandbox.url).catch(() => undefined);
    await eventually(() => silent.hits === 1);
    await sandbox.close();
    // The sandbox's connection to the endpoint is gone well before the 10 s attempt timeout.
    expect(await eventually(() => silent.disconnects === 1, { timeoutMs: 1000 })).toBe(true);
    await hanging;
  });

  it("with retries off, posts each payload once and lets the message's next status go", async () => {
    const { sandbox, receiver } = await setUp((nth) => (nth === 1 ? 503 : 200), {
      statusDelaysMs: { sent: 0, delivered: 10, read: 20 },
      webhookRetries: false,
      webhookRetryScale: 0.01,
    });
    await sendMessage(sandbox.url, template(TO, "hello_world", [], "en_US"));
    const hooks = await receiver.waitFor((all) => all.length === 3);
    expect(await pendingOf(sandbox.url)).toEqual([]);
    await pause(200); // a redelivery would have come after 9–11 ms
    expect(hooks.map((h) => [h.status, ...kinds(h)])).toEqual([
      [503, "sent"],
      [200, "delivered"],
      [200, "read"],
    ]);
    expect((await webhooks(sandbox.url)).map((r) => r.attempt)).toEqual([1, 1, 1]);
  });

  it("gives up after the whole schedule: 1 + 16 POSTs, then nothing", async () => {
    // 1e-6: the 7 days take about 0.6 s.
    const { sandbox, receiver } = await setUp(500, { autoStatuses: false, webhookRetryScale: 0.000_001 });
    await inbound(sandbox.url);
    await receiver.waitFor((all) => all.length === 1 + RETRY_WAITS_MS.length);
    expect(await eventually(async () => ((await pendingOf(sandbox.url)).length === 0 ? true : undefined))).toBe(true);
    await pause(200);
    expect(receiver.received).toHaveLength(1 + RETRY_WAITS_MS.length);
    expect((await webhooks(sandbox.url)).map((r) => r.attempt)).toEqual(
      Array.from({ length: 1 + RETRY_WAITS_MS.length }, (_, i) => i + 1),
    );
  });

  it("redelivers to the webhook URL configured when the attempt is due", async () => {
    // The first redelivery is due about 1 s after the first POST (scale 1): ample time to point the sandbox at the
    // recovered receiver even on a loaded machine (at 0.1 the 100 ms wait was sometimes shorter than the /config call).
    const { sandbox, receiver } = await setUp(503, { autoStatuses: false, webhookRetryScale: 1 });
    const recovered = await startReceiver(200);
    open.push(recovered);
    await inbound(sandbox.url);
    await control(sandbox.url, "/config", { webhookUrl: recovered.url });
    const [hook] = await recovered.waitFor((all) => all.length === 1);
    expect(hook?.raw.equals(receiver.received[0]?.raw ?? Buffer.alloc(0))).toBe(true);
    expect(receiver.received).toHaveLength(1);
  });
});

describe("the webhook transport", () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const item of open.splice(0).reverse()) await item.close();
  });

  it("reuses one keep-alive connection for successive webhooks", async () => {
    const receiver = await startReceiver();
    const sandbox = await start({ webhookUrl: receiver.url, statusDelaysMs: { sent: 0, delivered: 5, read: 10 } });
    open.push(sandbox, receiver);
    await sendMessage(sandbox.url, template(TO, "hello_world", [], "en_US"));
    const hooks = await receiver.waitFor((all) => all.length === 3);
    expect(new Set(hooks.map((h) => h.remotePort)).size).toBe(1);
  });

  it("does not follow a redirect: the 3xx is the answer", async () => {
    const elsewhere = await startReceiver();
    const redirecting = createServer((_req, res) => res.writeHead(307, { location: elsewhere.url }).end());
    redirecting.listen(0, "127.0.0.1");
    await once(redirecting, "listening");
    const { port } = redirecting.address() as AddressInfo;
    const sandbox = await start({ webhookUrl: `http://127.0.0.1:${port}/hook`, webhookRetries: false });
    open.push(sandbox, elsewhere, {
      close: () =>
        new Promise<void>((resolve) => {
          redirecting.close(() => resolve());
          redirecting.closeAllConnections();
        }),
    });
    expect((await inbound(sandbox.url)).body.webhook_status).toBe(307);
    await pause(50);
    expect(elsewhere.received).toHaveLength(0);
  });

  it("ends an attempt without an answer at the per-attempt timeout and schedules a redelivery", async () => {
    const silent = await startSilentReceiver();
    const sandbox = await start({ webhookUrl: silent.url, autoStatuses: false, webhookTimeoutMs: 100 });
    open.push(sandbox, silent);
    const started = performance.now();
    expect((await inbound(sandbox.url)).body.webhook_status).toBeNull();
    expect(performance.now() - started).toBeLessThan(2000);
    const [record] = await webhooks(sandbox.url);
    expect(record).toMatchObject({ status: null, error: expect.stringMatching(/within 100 ms/) });
    expect(await pendingOf(sandbox.url)).toEqual([
      expect.objectContaining({ attempts: 1, last_status: null, last_error: record?.error }),
    ]);
  });
});
