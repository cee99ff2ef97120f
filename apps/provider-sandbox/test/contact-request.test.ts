import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import type { RunningSandbox, SentMessage } from "../src/index.ts";
import {
  signedByMeta,
  control,
  PHONE_ID,
  sendMessage,
  start,
  startReceiver,
  statusesOf,
  valueOf,
  type Answer,
  type ReceivedWebhook,
} from "./helpers.ts";
import { shapeOf, SYSTEM_USER_CHANGED_USER_ID_LATE_2026 } from "./meta-2026-samples.ts";

// Asking a username user for its phone (meta-late-2026 §3): the `request_contact_info` interactive send, the user's
// `contacts` reply with `origin` (POST /_sandbox/contact-share), and the previous-id fields of the identity-change
// system messages (§4).
const PHONE = "15551230000";
const NEW_PHONE = "15551239999";
const HOUR = 60 * 60 * 1000;

const pablo = { username: "pablomorales" };

interface UserView {
  user_id: string;
  parent_user_id: string;
  phone: string | null;
  webhook_identity?: { wa_id: string | null; user_id: string };
}

interface ShareAnswer {
  id: string;
  webhook_status: number | null;
}

interface ChangeAnswer {
  user: UserView;
  webhooks: { type: string }[];
}

function contactRequest(address: Record<string, string>, interactive: Record<string, unknown> = {}) {
  return {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    ...address,
    type: "interactive",
    interactive: {
      type: "request_contact_info",
      body: { text: "Para confirmar seu pedido, compartilhe seu número." },
      action: { name: "request_contact_info" },
      ...interactive,
    },
  };
}

function expectError(answer: Answer, code: number, details: RegExp): void {
  expect(answer.status).toBe(400);
  expect(answer.body.error?.code).toBe(code);
  expect(answer.body.error?.error_data?.details).toMatch(details);
}

function firstMessage(hook: ReceivedWebhook | undefined): Record<string, unknown> | undefined {
  return valueOf(hook)?.messages?.[0];
}

describe("request_contact_info and the user's contact card", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sandbox: RunningSandbox;
  let clock: number;
  let user: UserView;

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await start({
      webhookUrl: receiver.url,
      webhookRetries: false,
      autoStatuses: false,
      now: () => clock,
    });
  });
  beforeEach(async () => {
    clock = Date.parse("2026-12-01T12:00:00Z");
    await control(sandbox.url, "/reset", { config: true });
    // A username user whose phone the sandbox knows but this number may not see (meta-2026 §1.3).
    user = (await control<UserView>(sandbox.url, "/users", { ...pablo, name: "Pablo Morales", phone: PHONE })).body;
    receiver.received.length = 0;
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  const inbound = () =>
    control(sandbox.url, "/inbound", { phone_number_id: PHONE_ID, ...pablo, type: "text", text: "Oi" });
  const share = (body: Record<string, unknown>) =>
    control<ShareAnswer>(sandbox.url, "/contact-share", { phone_number_id: PHONE_ID, ...body });

  it("sends request_contact_info to a BSUID inside the window, and refuses it outside (131047)", async () => {
    const outside = await sendMessage(sandbox.url, contactRequest({ recipient: user.user_id }));
    expectError(outside, 131047, /more than 24 hours/);

    await inbound();
    const inside = await sendMessage(sandbox.url, contactRequest({ recipient: user.user_id }));
    expect(inside.status).toBe(200);
    expect(inside.body.contacts).toEqual([{ input: user.user_id, user_id: user.user_id }]);
    const [sent] = (await control<SentMessage[]>(sandbox.url, "/sent")).body;
    expect(sent).toMatchObject({ type: "interactive", to: null, recipient: user.user_id });
    expect((sent?.body as { interactive: { type: string } }).interactive.type).toBe("request_contact_info");

    // To the phone too (free-form: the same window).
    const byPhone = await sendMessage(sandbox.url, contactRequest({ to: PHONE }));
    expect(byPhone.status).toBe(200);
    expect(byPhone.body.contacts).toEqual([{ input: PHONE, wa_id: PHONE }]);

    clock += 25 * HOUR;
    expectError(await sendMessage(sandbox.url, contactRequest({ recipient: user.user_id })), 131047, /24 hours/);
  });

  it("refuses bad shapes with Meta's codes: 131008 missing, 131009 invalid, 100 not allowed", async () => {
    await inbound();
    const send = (interactive: Record<string, unknown>) =>
      sendMessage(sandbox.url, contactRequest({ recipient: user.user_id }, interactive));
    expectError(await send({ body: undefined }), 131008, /^interactive\['body'\] is required$/);
    expectError(await send({ body: {} }), 131008, /^interactive\['body'\]\['text'\] is required$/);
    expectError(
      await send({ body: { text: "" } }),
      131009,
      /^Body text length invalid\. Min length: 1, Max length: 1024$/,
    );
    expectError(await send({ body: { text: "x".repeat(1025) } }), 131009, /Max length: 1024$/);
    expectError(await send({ action: undefined }), 131008, /^interactive\['action'\] is required$/);
    expectError(await send({ action: {} }), 131008, /^interactive\['action'\]\['name'\] is required$/);
    expectError(
      await send({ action: { name: "send_location" } }),
      131009,
      /^Action name invalid\. Expected: request_contact_info; got send_location$/,
    );
    expectError(
      await send({ header: { type: "text", text: "Oi" } }),
      100,
      /^Param interactive\['header'\] is not allowed for request_contact_info\.$/,
    );
    expectError(await send({ footer: { text: "Loja" } }), 100, /interactive\['footer'\] is not allowed/);
    expectError(
      await send({ action: { name: "request_contact_info", buttons: [] } }),
      100,
      /^Param interactive\['action'\]\['buttons'\] is not allowed/,
    );
    expectError(await send({ body: { text: "Oi", link: "x" } }), 100, /interactive\['body'\]\['link'\] is not allowed/);
    // 1024 characters (code points) is the limit, not bytes.
    expect((await send({ body: { text: "é".repeat(1024) } })).status).toBe(200);
    const accepted = (await control<SentMessage[]>(sandbox.url, "/sent")).body;
    expect(accepted).toHaveLength(1);
  });

  it("origin contact_request: the user's own phone in the card, while the user stays BSUID-addressed", async () => {
    await inbound();
    await sendMessage(sandbox.url, contactRequest({ recipient: user.user_id }));
    receiver.received.length = 0;

    const answer = await share({ user: pablo, origin: "contact_request" });
    expect(answer.status).toBe(200);
    expect(answer.body.id).toMatch(/^wamid\./);
    expect(answer.body.webhook_status).toBe(200);
    expect(receiver.received).toHaveLength(1);
    const hook = receiver.received[0];
    expect(signedByMeta(hook)).toBe(true);
    const value = valueOf(hook);
    expect(value?.contacts).toEqual([
      { profile: { name: "Pablo Morales", username: "pablomorales" }, user_id: user.user_id },
    ]);
    expect(firstMessage(hook)).toEqual({
      from_user_id: user.user_id,
      id: answer.body.id,
      timestamp: String(Math.floor(clock / 1000)),
      type: "contacts",
      contacts: [
        {
          name: { formatted_name: "Pablo Morales", first_name: "Pablo", last_name: "Morales" },
          phones: [{ phone: `+${PHONE}`, wa_id: PHONE, type: "MOBILE" }],
          origin: "contact_request",
        },
      ],
    });

    // Meta does not start sharing the phone: later webhooks still omit it.
    const identity = await control<{ users: UserView[] }>(
      sandbox.url,
      `/users?username=pablomorales&phone_number_id=${PHONE_ID}`,
    );
    expect(identity.body.users[0]?.webhook_identity?.wa_id).toBeNull();
    receiver.received.length = 0;
    await inbound();
    expect(firstMessage(receiver.received[0])).not.toHaveProperty("from");
    expect(valueOf(receiver.received[0])?.contacts?.[0]).not.toHaveProperty("wa_id");
    // The statuses of a BSUID send: the sandbox's own, read when each falls due.
    await control(sandbox.url, "/config", { autoStatuses: true, statusDelaysMs: { sent: 0, delivered: 0, read: 0 } });
    const reply = await sendMessage(sandbox.url, {
      messaging_product: "whatsapp",
      recipient: user.user_id,
      type: "text",
      text: { body: "Obrigado!" },
    });
    const wamid = reply.body.messages?.[0]?.id ?? "";
    await receiver.waitFor((all) => statusesOf(all).some((s) => s.id === wamid && s.status === "read"));
    const statuses = statusesOf(receiver.received).filter((s) => s.id === wamid);
    expect(statuses.map((s) => s.status)).toEqual(["sent", "delivered", "read"]);
    for (const status of statuses) {
      expect(status.recipient_user_id).toBe(user.user_id);
      expect(status).not.toHaveProperty("recipient_id");
    }
    expect(receiver.received.map((h) => h.raw.toString()).join()).not.toContain(PHONE);
  });

  it("origin contact_request: a user whose phone the sandbox does not know is a 400; an unknown user a 404", async () => {
    await control(sandbox.url, "/users", { username: "semtelefone", phone: null });
    const refused = await share({ user: { username: "semtelefone" }, origin: "contact_request" });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(/não tem telefone conhecido/);
    expect((await share({ user: { username: "ninguem" }, origin: "contact_request" })).status).toBe(404);
    expect(
      (await share({ user: pablo, origin: "contact_request", card: { name: { formatted_name: "X" } } })).status,
    ).toBe(400);
    expect((await share({ user: { ...pablo, from: PHONE }, origin: "other" })).status).toBe(400);
    expect((await share({ user: pablo, origin: "mine" })).status).toBe(400);
    expect(receiver.received).toHaveLength(0);
  });

  it("origin other: the given card, with its vCard; a made-up card when none is given", async () => {
    const card = {
      name: { formatted_name: "Maria Souza", first_name: "Maria", last_name: "Souza" },
      phones: [{ phone: "+55 11 98888-7777", wa_id: "5511988887777", type: "CELL" }],
      emails: [{ email: "maria@example.com", type: "WORK" }],
    };
    // By BSUID, as the gateway would know a username user.
    const answer = await share({ user: { user_id: user.user_id }, origin: "other", card, timestamp: 1780000000 });
    expect(answer.status).toBe(200);
    const message = firstMessage(receiver.received[0]);
    expect(message).toMatchObject({ from_user_id: user.user_id, timestamp: "1780000000", type: "contacts" });
    expect(message).not.toHaveProperty("from");
    const [shared] = (message?.contacts ?? []) as Record<string, unknown>[];
    expect(shared).toEqual({
      ...card,
      origin: "other",
      vcard: [
        "BEGIN:VCARD",
        "VERSION:3.0",
        "N:Souza;Maria;;;",
        "FN:Maria Souza",
        "TEL;type=CELL;waid=5511988887777:+55 11 98888-7777",
        "END:VCARD",
      ].join("\n"),
    });

    await share({ user: pablo, origin: "other" });
    const [madeUp] = (firstMessage(receiver.received[1])?.contacts ?? []) as Record<string, unknown>[];
    expect(madeUp).toMatchObject({
      name: { formatted_name: "Contato Exemplo" },
      phones: [{ phone: "+55 11 99999-0000", wa_id: "5511999990000" }],
      origin: "other",
    });
    expect(madeUp?.vcard).toMatch(/^BEGIN:VCARD\n[\s\S]*FN:Contato Exemplo\n[\s\S]*END:VCARD$/);
    // Writing opens the window, as any message from the user does.
    expect((await sendMessage(sandbox.url, contactRequest({ recipient: user.user_id }))).status).toBe(200);
  });

  it("a phone user (no username) shows its phone in `from` as on any inbound message", async () => {
    const answer = await share({ user: { from: "5511977776666" }, origin: "contact_request" });
    expect(answer.status).toBe(200);
    const message = firstMessage(receiver.received[0]);
    expect(message).toMatchObject({
      from: "5511977776666",
      contacts: [{ phones: [{ phone: "+5511977776666", wa_id: "5511977776666", type: "MOBILE" }] }],
    });
  });
});

describe("identity-change system messages carry the previous ids (meta-late-2026 §4)", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await start({ webhookUrl: receiver.url, webhookRetries: false, autoStatuses: false });
  });
  beforeEach(async () => {
    await control(sandbox.url, "/reset", { config: true });
    receiver.received.length = 0;
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  it("user_changed_number and user_changed_user_id: previous_user_id and previous_parent_user_id", async () => {
    await control(sandbox.url, "/portfolios", { parent_user_ids: true });
    await control(sandbox.url, "/inbound", {
      phone_number_id: PHONE_ID,
      from: PHONE,
      name: "Sheena Nelson",
      type: "text",
      text: "Oi",
    });
    const before = valueOf(receiver.received[0])?.contacts?.[0];
    const oldUserId = before?.user_id ?? "";
    const oldParent = before?.parent_user_id ?? "";
    expect(oldParent).toMatch(/^US\.ENT\./);
    receiver.received.length = 0;

    const answer = await control<ChangeAnswer>(sandbox.url, "/users/identity-change", {
      user: { phone: PHONE },
      phone: NEW_PHONE,
      user_id_update: false,
    });
    expect(answer.body.webhooks.map((w) => w.type)).toEqual(["user_changed_number", "user_changed_user_id"]);
    const { user_id: newUserId, parent_user_id: newParent } = answer.body.user;
    const [number, userId] = receiver.received.map((hook) => firstMessage(hook)?.system);
    expect(number).toEqual({
      body: `User Sheena Nelson changed from ${PHONE} to ${NEW_PHONE}`,
      wa_id: NEW_PHONE,
      user_id: newUserId,
      parent_user_id: newParent,
      previous_user_id: oldUserId,
      previous_parent_user_id: oldParent,
      type: "user_changed_number",
    });
    expect(userId).toEqual({
      body: `User Sheena Nelson changed from ${oldUserId} to ${newUserId}`,
      user_id: newUserId,
      parent_user_id: newParent,
      previous_user_id: oldUserId,
      previous_parent_user_id: oldParent,
      type: "user_changed_user_id",
    });
    expect(newUserId).not.toBe(oldUserId);
    expect(newParent).not.toBe(oldParent);
  });

  it("without parent BSUIDs: previous_user_id only, in the shape of the late-2026 message", async () => {
    await control(sandbox.url, "/users", { ...pablo, name: "Pablo M.", phone: PHONE });
    await control(sandbox.url, "/inbound", { phone_number_id: PHONE_ID, ...pablo, type: "text", text: "Oi" });
    const oldUserId = valueOf(receiver.received[0])?.contacts?.[0]?.user_id ?? "";
    receiver.received.length = 0;

    const answer = await control<ChangeAnswer>(sandbox.url, "/users/identity-change", {
      user: pablo,
      user_id: "US.99887766554433221100",
      user_id_update: false,
    });
    expect(answer.body.webhooks.map((w) => w.type)).toEqual(["user_changed_user_id"]);
    const message = firstMessage(receiver.received[0]);
    // The phone is not shown to this number: no `from` (the sample has one).
    expect(shapeOf({ from: PHONE, ...message })).toEqual(shapeOf(SYSTEM_USER_CHANGED_USER_ID_LATE_2026));
    expect(message?.system).toEqual({
      body: `User Pablo M. changed from ${oldUserId} to US.99887766554433221100`,
      user_id: "US.99887766554433221100",
      previous_user_id: oldUserId,
      type: "user_changed_user_id",
    });
  });
});
