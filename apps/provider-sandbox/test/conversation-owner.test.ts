import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import type { RunningSandbox } from "../src/index.ts";
import {
  fieldOf,
  control,
  hooksOf,
  pendingOf,
  PHONE_ID,
  sendMessage,
  signedByMeta,
  start,
  startReceiver,
  text,
  valueOf,
  type ReceivedWebhook,
} from "./helpers.ts";

// Conversation Routing (meta-late-2026 §5): a conversation another app owns (Meta's Business AI agent...) sends the
// user's messages on the `standby` field instead of `messages`; statuses of the business's own sends stay on
// `messages`. POST /_sandbox/conversation-owner sets the owner per (business number, user).

const PHONE = "5511977776666";
const OTHER_PHONE = "5511977775555";
const OTHER_NUMBER = "106540352242999";

interface OwnerAnswer {
  phone_number_id: string;
  user_id: string;
  owner: string;
}

interface ErrorAnswer {
  error: { message: string; issues?: { path: (string | number)[] }[] };
}

describe("POST /_sandbox/conversation-owner and the standby field", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await start({
      webhookUrl: receiver.url,
      webhookRetries: false,
      autoStatuses: false,
      statusBatchMs: 0,
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

  const owner = (body: Record<string, unknown>) =>
    control<OwnerAnswer & ErrorAnswer>(sandbox.url, "/conversation-owner", { phone_number_id: PHONE_ID, ...body });
  // A fixed id and timestamp: the same input gives the same value whichever field carries it.
  const inbound = async (body: Record<string, unknown> = {}): Promise<ReceivedWebhook | undefined> => {
    const before = receiver.received.length;
    const answer = await control<{ webhook_status: number | null }>(sandbox.url, "/inbound", {
      phone_number_id: PHONE_ID,
      from: PHONE,
      type: "text",
      text: "Oi",
      id: "wamid.OWNER1",
      timestamp: 1_790_000_000,
      ...body,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.webhook_status).toBe(200);
    expect(receiver.received).toHaveLength(before + 1);
    return receiver.received.at(-1);
  };

  it("posts on messages by default, on standby while business_ai owns the conversation, and back", async () => {
    const mine = await inbound();
    expect(fieldOf(mine)).toBe("messages");

    const set = await owner({ user: { from: PHONE }, owner: "business_ai" });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ phone_number_id: PHONE_ID, user_id: expect.any(String), owner: "business_ai" });
    expect(set.body.user_id).toBe(valueOf(mine)?.contacts?.[0]?.user_id);

    const standby = await inbound();
    // Meta's nesting, signed like any other webhook, and the very value a `messages` change would carry.
    expect(standby?.body).toEqual({
      object: "whatsapp_business_account",
      entry: [{ id: expect.any(String), changes: [{ field: "standby", value: valueOf(mine) }] }],
    });
    expect(standby?.body.entry[0]?.id).toBe(mine?.body.entry[0]?.id);
    expect(Object.keys(valueOf(standby) ?? {})).toEqual(["messaging_product", "metadata", "contacts", "messages"]);
    expect(signedByMeta(standby)).toBe(true);

    const back = await owner({ user: { from: PHONE }, owner: "this_app" });
    expect(back.body.owner).toBe("this_app");
    expect(fieldOf(await inbound())).toBe("messages");
  });

  it("is per conversation: another user, or the same user on another number, stays on messages", async () => {
    await owner({ user: { from: PHONE }, owner: "app_123456" });
    expect(fieldOf(await inbound())).toBe("standby");
    expect(fieldOf(await inbound({ from: OTHER_PHONE }))).toBe("messages");
    expect(fieldOf(await inbound({ phone_number_id: OTHER_NUMBER }))).toBe("messages");
  });

  it("keeps statuses of the business's own sends to that user on messages", async () => {
    await inbound({ timestamp: undefined }); // now: opens the window
    await owner({ user: { from: PHONE }, owner: "business_ai" });
    const sent = await sendMessage(sandbox.url, text(PHONE, "Seu pedido saiu"));
    expect(sent.status).toBe(200);
    const wamid = sent.body.messages?.[0]?.id ?? "";
    const status = await control<{ webhook_status: number | null }>(sandbox.url, "/statuses", {
      statuses: [{ id: wamid, status: "delivered", recipient_id: PHONE }],
    });
    expect(status.status).toBe(200);
    const hook = receiver.received.at(-1);
    expect(fieldOf(hook)).toBe("messages");
    expect(valueOf(hook)?.statuses?.[0]).toMatchObject({ id: wamid, status: "delivered" });

    // The automatic statuses of a send too.
    await control(sandbox.url, "/config", { autoStatuses: true });
    const auto = await sendMessage(sandbox.url, text(PHONE, "Chegou?"));
    const autoId = auto.body.messages?.[0]?.id ?? "";
    const hooks = await receiver.waitFor((all) =>
      all.some((h) => (valueOf(h)?.statuses ?? []).some((s) => s.id === autoId && s.status === "read")),
    );
    const ofAuto = hooks.filter((h) => (valueOf(h)?.statuses ?? []).some((s) => s.id === autoId));
    expect(ofAuto.length).toBeGreaterThan(0);
    expect(ofAuto.map(fieldOf).every((field) => field === "messages")).toBe(true);
    expect(hooksOf(receiver.received, "standby")).toHaveLength(0);
  });

  it("sends the other user-message controls on standby too: contact-share and tap", async () => {
    const user = (
      await control<{ user_id: string }>(sandbox.url, "/users", {
        username: "ownertest",
        name: "Owner Test",
        phone: PHONE,
      })
    ).body;
    // Set by username, reached by BSUID: the owner belongs to the user, not to the selector.
    expect((await owner({ user: { username: "ownertest" }, owner: "business_ai" })).body.user_id).toBe(user.user_id);
    const share = await control(sandbox.url, "/contact-share", {
      phone_number_id: PHONE_ID,
      user: { user_id: user.user_id },
      origin: "other",
    });
    expect(share.status).toBe(200);
    const shared = receiver.received.at(-1);
    expect(fieldOf(shared)).toBe("standby");
    expect(valueOf(shared)?.messages?.[0]).toMatchObject({ type: "contacts", from_user_id: user.user_id });

    await inbound({ from: undefined, user_id: user.user_id, timestamp: undefined }); // opens the window
    const sent = await sendMessage(sandbox.url, {
      messaging_product: "whatsapp",
      recipient: user.user_id,
      type: "interactive",
      interactive: {
        type: "button",
        body: { text: "Confirma?" },
        action: { buttons: [{ type: "reply", reply: { id: "sim", title: "Sim" } }] },
      },
    });
    expect(sent.status).toBe(200);
    // This app is the number's escalation partner: its reply took the thread back (thread-control.test.ts).
    await owner({ user: { user_id: user.user_id }, owner: "business_ai" });
    const tap = await control(sandbox.url, "/tap", { wamid: sent.body.messages?.[0]?.id, button_id: "sim" });
    expect(tap.status).toBe(200);
    const tapped = receiver.received.at(-1);
    expect(fieldOf(tapped)).toBe("standby");
    expect(valueOf(tapped)?.messages?.[0]).toMatchObject({ interactive: { button_reply: { id: "sim" } } });
  });

  it("lists a standby payload awaiting redelivery with its messages, like a messages one", async () => {
    const failing = await startReceiver(503);
    try {
      await control(sandbox.url, "/config", { webhookUrl: failing.url, webhookRetries: true, webhookRetryScale: 100 });
      await owner({ user: { from: PHONE }, owner: "business_ai" });
      const answer = await control<{ webhook_status: number | null }>(sandbox.url, "/inbound", {
        phone_number_id: PHONE_ID,
        from: PHONE,
        type: "text",
        text: "Oi",
        id: "wamid.OWNER1",
      });
      expect(answer.body.webhook_status).toBe(503);
      const [pending] = await pendingOf(sandbox.url);
      expect(pending?.summary).toEqual({
        phone_number_id: PHONE_ID,
        statuses: [],
        messages: [{ id: "wamid.OWNER1", from: PHONE, from_user_id: expect.any(String), type: "text" }],
      });
      expect(hooksOf(failing.received, "standby")).toHaveLength(1);
    } finally {
      await control(sandbox.url, "/reset", { config: true });
      await failing.close();
    }
  });

  it("forgets owners on /reset", async () => {
    await owner({ user: { from: PHONE }, owner: "business_ai" });
    expect(fieldOf(await inbound())).toBe("standby");
    await control(sandbox.url, "/reset", { config: true });
    expect(fieldOf(await inbound())).toBe("messages");
  });

  it("answers 404 for a user the sandbox does not know, 400 for a bad body, and changes nothing", async () => {
    const unknownName = await owner({ user: { username: "ninguem_aqui" }, owner: "business_ai" });
    expect(unknownName.status).toBe(404);
    expect(unknownName.body.error.message).toMatch(/Usuário desconhecido/);
    expect((await owner({ user: { user_id: "BR.naoexiste999" }, owner: "business_ai" })).status).toBe(404);

    const bad = async (body: Record<string, unknown>, path: string): Promise<void> => {
      const answer = await control<ErrorAnswer>(sandbox.url, "/conversation-owner", body);
      expect(answer.status).toBe(400);
      expect(answer.body.error.issues?.map((issue) => issue.path.join("."))).toContain(path);
    };
    await bad({ phone_number_id: PHONE_ID, user: { from: PHONE } }, "owner");
    await bad({ phone_number_id: PHONE_ID, user: { from: PHONE }, owner: " " }, "owner");
    await bad({ user: { from: PHONE }, owner: "business_ai" }, "phone_number_id");
    await bad({ phone_number_id: PHONE_ID, owner: "business_ai" }, "user");
    await bad(
      { phone_number_id: PHONE_ID, user: { from: PHONE, username: "ownertest" }, owner: "business_ai" },
      "user",
    );
    await bad({ phone_number_id: PHONE_ID, user: { from: "abc" }, owner: "business_ai" }, "user.from");
    await bad({ phone_number_id: PHONE_ID, user: { from: PHONE }, owner: "business_ai", extra: 1 }, "");

    expect(fieldOf(await inbound())).toBe("messages");
  });
});
