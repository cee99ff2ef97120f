import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import type { ReadMark, RunningSandbox, SentMessage } from "../src/index.ts";
import { control, pause, PHONE_ID, sendMessage, start, startReceiver, type Answer } from "./helpers.ts";
import { MARK_READ_ANSWER, shapeOf } from "./meta-2026-samples.ts";

// Mark-as-read and typing indicators (meta-2026 §4): POST /{phone-number-id}/messages naming an inbound wamid,
// answered `{success: true}`, no wamid, no status webhook; recorded for GET /_sandbox/read-marks.
const FROM = "5511988887777";
const OTHER_NUMBER = "106540352249999";

function expectError(answer: Answer, code: number, details: RegExp): void {
  expect(answer.status).toBe(400);
  expect(answer.body.error?.code).toBe(code);
  expect(answer.body.error?.error_data?.details).toMatch(details);
}

describe("mark as read and typing indicators", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sandbox: RunningSandbox;
  let wamid: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await start({
      webhookUrl: receiver.url,
      webhookRetries: false,
      statusDelaysMs: { sent: 0, delivered: 0, read: 0 },
    });
  });
  afterEach(async () => {
    await control(sandbox.url, "/reset", { config: true });
    receiver.received.length = 0;
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  const writes = async (body: Record<string, unknown> = { from: FROM }): Promise<string> => {
    const answer = await control<{ id: string }>(sandbox.url, "/inbound", {
      phone_number_id: PHONE_ID,
      type: "text",
      text: "Oi",
      ...body,
    });
    return answer.body.id;
  };
  const marks = async (query = ""): Promise<ReadMark[]> =>
    (await control<{ read_marks: ReadMark[] }>(sandbox.url, `/read-marks${query}`)).body.read_marks;

  it("answers {success: true} to mark-as-read and to a typing indicator, and records both", async () => {
    wamid = await writes();
    const read = await sendMessage(sandbox.url, { messaging_product: "whatsapp", status: "read", message_id: wamid });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(MARK_READ_ANSWER);
    expect(shapeOf(read.body)).toEqual(shapeOf(MARK_READ_ANSWER));
    const typing = await sendMessage(sandbox.url, {
      messaging_product: "whatsapp",
      status: "read",
      message_id: wamid,
      typing_indicator: { type: "text" },
    });
    expect(typing.body).toEqual({ success: true });

    const userId = (await control<{ users: { user_id: string }[] }>(sandbox.url, `/users?phone=${FROM}`)).body.users[0]
      ?.user_id;
    expect(await marks()).toEqual([
      { phone_number_id: PHONE_ID, message_id: wamid, user_id: userId, typing_indicator: null, at: expect.any(String) },
      {
        phone_number_id: PHONE_ID,
        message_id: wamid,
        user_id: userId,
        typing_indicator: "text",
        at: expect.any(String),
      },
    ]);
    expect(await marks(`?phone_number_id=${OTHER_NUMBER}`)).toEqual([]);
    // Not a message: nothing in /sent, no status webhook (the inbound webhook is the only one).
    expect((await control<SentMessage[]>(sandbox.url, "/sent")).body).toEqual([]);
    await pause(50);
    expect(receiver.received).toHaveLength(1);
  });

  it("works for a username-only user's message: no recipient field is involved", async () => {
    const user = (await control<{ user_id: string }>(sandbox.url, "/users", { username: "pablomorales" })).body;
    wamid = await writes({ username: "pablomorales" });
    const answer = await sendMessage(sandbox.url, {
      messaging_product: "whatsapp",
      status: "read",
      message_id: wamid,
      typing_indicator: { type: "text" },
    });
    expect(answer.body).toEqual({ success: true });
    expect((await marks())[0]).toMatchObject({ message_id: wamid, user_id: user.user_id, typing_indicator: "text" });
  });

  it("refuses an unknown message id, another number's message and malformed calls with code 100", async () => {
    wamid = await writes();
    const call = (body: Record<string, unknown>, phoneId = PHONE_ID) =>
      sendMessage(sandbox.url, { messaging_product: "whatsapp", status: "read", ...body }, { phoneId });
    expectError(await call({ message_id: "wamid.NOPE" }), 100, /wamid\.NOPE/);
    expectError(await call({ message_id: wamid }, OTHER_NUMBER), 100, /not a message this number received/);
    expectError(await call({}), 100, /message_id is required/);
    expectError(await call({ message_id: wamid, status: "delivered" }), 100, /status must be one of \{READ\}/);
    expectError(await call({ message_id: wamid, typing_indicator: { type: "audio" } }), 100, /typing_indicator/);
    expectError(
      await sendMessage(sandbox.url, { status: "read", message_id: wamid }),
      100,
      /messaging_product is required/,
    );
    expect(await marks()).toEqual([]);
  });

  it("forgets inbound messages on reset: marking one afterwards is refused", async () => {
    wamid = await writes();
    await control(sandbox.url, "/reset", {});
    const answer = await sendMessage(sandbox.url, { messaging_product: "whatsapp", status: "read", message_id: wamid });
    expect(answer.body.error?.code).toBe(100);
  });
});
