import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { eventually } from "@gw/testkit";
import type { GraphRequestRecord, RunningSandbox, SentMessage, WebhookRecord } from "../src/index.ts";
import { recent, remember } from "../src/state.ts";
import { control, sendMessage, start, startReceiver, statusesOf, template } from "./helpers.ts";

const TO = "5511988887777";
const hello = template(TO, "hello_world", [], "en_US");

describe("history lists", () => {
  it("keep at most limit + min(1024, limit / 8) entries in memory and show exactly the newest `limit`", () => {
    const list: number[] = [];
    let longest = 0;
    for (let i = 0; i < 30_000; i++) {
      remember(list, i, 10_000);
      longest = Math.max(longest, list.length);
    }
    expect(longest).toBe(10_000 + 1024);
    expect(recent(list, 10_000)).toEqual(Array.from({ length: 10_000 }, (_, i) => 20_000 + i));

    const small: number[] = [];
    for (let i = 0; i < 20; i++) remember(small, i, 5);
    expect(small.length).toBeLessThanOrEqual(6);
    expect(recent(small, 5)).toEqual([15, 16, 17, 18, 19]);
  });
});

describe("SANDBOX_HISTORY_LIMIT", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await start({
      webhookUrl: receiver.url,
      historyLimit: 5,
      statusDelaysMs: { sent: 0, delivered: 0, read: 0 },
    });
  });
  beforeEach(async () => {
    await control(sandbox.url, "/reset", { config: true });
    receiver.received.length = 0;
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  it("sent, requests and webhooks show the newest five, and the lists in memory stay that short", async () => {
    const state = sandbox.sandbox.state;
    const wamids: string[] = [];
    let longest = 0;
    for (let i = 0; i < 12; i++) {
      wamids.push((await sendMessage(sandbox.url, hello)).body.messages?.[0]?.id ?? "");
      longest = Math.max(longest, state.sent.length, state.requests.length, state.webhooks.length);
    }
    await receiver.waitFor((all) => statusesOf(all).length === 36);
    const webhooks = await eventually(async () => {
      const all = (await control<WebhookRecord[]>(sandbox.url, "/webhooks")).body;
      return all.every((w) => w.status === 200) ? all : undefined;
    });

    expect(longest).toBeLessThanOrEqual(6);
    expect((await control<SentMessage[]>(sandbox.url, "/sent")).body.map((s) => s.wamid)).toEqual(wamids.slice(-5));
    expect((await control<GraphRequestRecord[]>(sandbox.url, "/requests")).body).toHaveLength(5);
    expect(webhooks).toHaveLength(5);
    // The newest five webhooks are the last statuses posted (in flight together, so compared as sets).
    expect(webhooks.map((w) => w.raw).sort()).toEqual(
      receiver.received
        .slice(-5)
        .map((h) => h.raw.toString("utf8"))
        .sort(),
    );
    expect([state.sent.length, state.requests.length, state.webhooks.length]).toEqual([5, 5, 5]);
    // Without a rate limit nothing is counted per second either.
    expect(state.rate.size).toBe(0);
  });

  it("can be lowered at run time, and a message gone from the history is unknown to POST /statuses", async () => {
    const first = (await sendMessage(sandbox.url, hello)).body.messages?.[0]?.id ?? "";
    for (let i = 0; i < 3; i++) await sendMessage(sandbox.url, hello);
    await control(sandbox.url, "/config", { historyLimit: 2 });
    expect((await control<SentMessage[]>(sandbox.url, "/sent")).body).toHaveLength(2);
    const answer = await control<{ error: { message: string } }>(sandbox.url, "/statuses", {
      statuses: [{ id: first, status: "read" }],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(/recipient_id é obrigatório/);
  });
});
