import { afterEach, describe, expect, it } from "@jest/globals";
import { verifyMetaSignature } from "@gw/signer";
import { MAX_STATUSES_PER_PAYLOAD, type RunningSandbox, type SandboxOptions, type SentMessage } from "../src/index.ts";
import {
  APP_SECRET,
  control,
  PHONE_ID,
  sendMessage,
  start,
  startReceiver,
  statusesOf,
  template,
  type ReceivedWebhook,
} from "./helpers.ts";

const OTHER_PHONE_ID = "106540352242999";
const FAR = 60_000; // a delay no test waits for

const recipient = (i: number) => `55119888${String(7000 + i).padStart(5, "0")}`;
const hello = (i: number) => template(recipient(i), "hello_world", [], "en_US");

/** [status, wamid] pairs of one POST. */
const pairs = (hook: ReceivedWebhook | undefined) => statusesOf(hook ? [hook] : []).map((s) => [s.status, s.id]);

/** Sends `count` messages, `parallel` at a time; answers the wamids in the order the sandbox accepted them. */
async function sendMany(base: string, count: number, parallel: number, phoneId = PHONE_ID): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const i = next++;
        expect((await sendMessage(base, hello(i), { phoneId })).status).toBe(200);
      }
    }),
  );
}

async function acceptedOrder(base: string): Promise<string[]> {
  return (await control<SentMessage[]>(base, "/sent")).body.map((s) => s.wamid);
}

describe("status batching", () => {
  const open: { close(): Promise<void> }[] = [];
  async function setUp(
    options: Partial<SandboxOptions>,
    answer: number | ((nth: number) => number) = 200,
  ): Promise<{ sandbox: RunningSandbox; receiver: Awaited<ReturnType<typeof startReceiver>> }> {
    const receiver = await startReceiver(answer);
    const sandbox = await start({ webhookUrl: receiver.url, ...options });
    open.push(sandbox, receiver);
    return { sandbox, receiver };
  }
  afterEach(async () => {
    for (const item of open.splice(0).reverse()) await item.close();
  });

  it("is off by default: one status per payload", async () => {
    const { sandbox, receiver } = await setUp({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 } });
    await sendMany(sandbox.url, 4, 4);
    const hooks = await receiver.waitFor((all) => statusesOf(all).length === 12);
    expect(hooks).toHaveLength(12);
    for (const hook of hooks) expect(statusesOf([hook])).toHaveLength(1);
  });

  it("puts the statuses of several sends due within the window into one payload, in order", async () => {
    // The four sends must fall within one window of each other: 600 ms, wide enough for a loaded machine; each kind's
    // window closes well before the next kind falls due.
    const { sandbox, receiver } = await setUp({
      statusBatchMs: 600,
      statusDelaysMs: { sent: 150, delivered: 1_800, read: 3_450 },
    });
    await sendMany(sandbox.url, 4, 4);
    const order = await acceptedOrder(sandbox.url);
    const hooks = await receiver.waitFor((all) => statusesOf(all).length === 12);

    // One payload per kind, each with the four messages (statuses due in the same millisecond may swap places:
    // neither Meta nor the sandbox orders different messages).
    expect(hooks.map((h) => pairs(h).sort())).toEqual(
      ["sent", "delivered", "read"].map((status) => order.map((wamid) => [status, wamid]).sort()),
    );
    for (const hook of hooks) {
      expect(verifyMetaSignature(APP_SECRET, hook.raw, String(hook.headers["x-hub-signature-256"]))).toBe(true);
      expect(hook.body.entry[0]?.changes[0]?.value.metadata.phone_number_id).toBe(PHONE_ID);
    }
  });

  it(`never puts more than ${MAX_STATUSES_PER_PAYLOAD} statuses in one payload`, async () => {
    // 40 sends × 3 statuses, all due at once and well within the window (the sends take far less than 5 s, even on a
    // loaded machine).
    const { sandbox, receiver } = await setUp({
      statusBatchMs: 5_000,
      statusDelaysMs: { sent: 0, delivered: 0, read: 0 },
    });
    await sendMany(sandbox.url, 40, 10);
    const order = await acceptedOrder(sandbox.url);
    const hooks = await receiver.waitFor((all) => statusesOf(all).length === 120);
    // The 100th status sends the payload at once; the other 20 wait for the window to close.
    expect(hooks.map((h) => statusesOf([h]).length)).toEqual([100, 20]);
    const byMessage = new Map<string, string[]>();
    for (const s of statusesOf(hooks)) byMessage.set(s.id, [...(byMessage.get(s.id) ?? []), s.status]);
    expect([...byMessage.keys()].sort()).toEqual([...order].sort());
    for (const statuses of byMessage.values()) expect(statuses).toEqual(["sent", "delivered", "read"]);
  });

  it("keeps one payload per business number", async () => {
    const { sandbox, receiver } = await setUp({
      statusBatchMs: 600,
      statusDelaysMs: { sent: 0, delivered: FAR, read: FAR },
    });
    await Promise.all([sendMany(sandbox.url, 3, 3), sendMany(sandbox.url, 2, 2, OTHER_PHONE_ID)]);
    const hooks = await receiver.waitFor((all) => statusesOf(all).length === 5);
    const byNumber = new Map(
      hooks.map((h) => [h.body.entry[0]?.changes[0]?.value.metadata.phone_number_id, statusesOf([h]).length]),
    );
    expect(hooks).toHaveLength(2);
    expect(byNumber).toEqual(
      new Map([
        [PHONE_ID, 3],
        [OTHER_PHONE_ID, 2],
      ]),
    );
  });

  it("keeps each message's statuses in order across payloads while one payload is redelivered", async () => {
    const { sandbox, receiver } = await setUp(
      {
        statusBatchMs: 50,
        statusDelaysMs: { sent: 0, delivered: 100, read: 200 },
        webhookRetryScale: 0.5, // the refused `sent` payload goes again after 450–550 ms
      },
      (nth) => (nth === 1 ? 503 : 200),
    );
    await sendMany(sandbox.url, 2, 2);
    const [a, b] = await acceptedOrder(sandbox.url);
    const hooks = await receiver.waitFor((all) => statusesOf(all).filter((s) => s.status === "read").length === 2);

    // delivered and read fell due while `sent` was waiting: they follow it, in order inside one payload.
    expect(hooks.map((h) => [h.status, ...pairs(h)])).toEqual([
      [503, ["sent", a], ["sent", b]],
      [200, ["sent", a], ["sent", b]],
      [200, ["delivered", a], ["read", a], ["delivered", b], ["read", b]],
    ]);
  });
});
