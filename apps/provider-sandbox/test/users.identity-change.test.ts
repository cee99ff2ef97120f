import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { verifyMetaSignature } from "@gw/signer";
import type { RunningSandbox, UserIdUpdatePayload, WebhookRecord } from "../src/index.ts";
import {
  APP_SECRET,
  control,
  hooksOf,
  PHONE_ID,
  sendMessage,
  start,
  startReceiver,
  text,
  valueOf,
  type ReceivedWebhook,
} from "./helpers.ts";
import { shapeOf, SYSTEM_USER_CHANGED_USER_ID_LATE_2026, USER_ID_UPDATE } from "./meta-2026-samples.ts";

// A user changes phone number and/or BSUID (meta-2026 §1.7): `system` messages (user_changed_number,
// user_changed_user_id) and the `user_id_update` webhook go to the numbers it talked to, and later webhooks and sends
// use the new ids while the user keeps its window and history.
const OLD_PHONE = "15551230000";
const NEW_PHONE = "15551239999";
const SECOND_NUMBER = "106540352248888";

interface UserView {
  key: string;
  user_id: string;
  parent_user_id: string;
  phone: string | null;
}

interface ChangeAnswer {
  user: UserView;
  webhooks: { phone_number_id: string; type: string; webhook_status: number | null }[];
}

/** `messages[0]` of a messages webhook (a system message, or a later inbound one). */
function firstMessage(hook: ReceivedWebhook | undefined): Record<string, unknown> | undefined {
  return valueOf(hook)?.messages?.[0];
}

describe("identity changes", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await start({ webhookUrl: receiver.url, webhookRetries: false, autoStatuses: false });
  });
  afterEach(async () => {
    await control(sandbox.url, "/reset", { config: true });
    receiver.received.length = 0;
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  const inbound = (body: Record<string, unknown>, phoneNumberId = PHONE_ID) =>
    control<{ id: string }>(sandbox.url, "/inbound", {
      phone_number_id: phoneNumberId,
      type: "text",
      text: "Oi",
      ...body,
    });
  const change = (body: Record<string, unknown>) => control<ChangeAnswer>(sandbox.url, "/users/identity-change", body);

  it("a phone change posts user_changed_number, user_changed_user_id and user_id_update, shaped like the samples", async () => {
    await inbound({ from: OLD_PHONE, name: "Sheena Nelson" });
    const oldUserId = valueOf(receiver.received[0])?.contacts?.[0]?.user_id ?? "";
    receiver.received.length = 0;

    const answer = await change({ user: { phone: OLD_PHONE }, phone: NEW_PHONE, timestamp: 1780000300 });
    expect(answer.status).toBe(200);
    const newUserId = answer.body.user.user_id;
    expect(newUserId).toMatch(/^US\.\d{20}$/);
    expect(newUserId).not.toBe(oldUserId);
    expect(answer.body.user.phone).toBe(NEW_PHONE);
    expect(answer.body.webhooks.map((w) => [w.phone_number_id, w.type, w.webhook_status])).toEqual([
      [PHONE_ID, "user_changed_number", 200],
      [PHONE_ID, "user_changed_user_id", 200],
      [PHONE_ID, "user_id_update", 200],
    ]);
    for (const hook of receiver.received) {
      expect(verifyMetaSignature(APP_SECRET, hook.raw, String(hook.headers["x-hub-signature-256"]))).toBe(true);
    }
    const [number, userId, update] = receiver.received;

    // System messages: no contacts array, the old phone in `from`, no from_user_id.
    expect(valueOf(number)?.contacts).toBeUndefined();
    expect(firstMessage(number)).toEqual({
      from: OLD_PHONE,
      id: expect.stringMatching(/^wamid\./),
      timestamp: "1780000300",
      type: "system",
      system: {
        body: `User Sheena Nelson changed from ${OLD_PHONE} to ${NEW_PHONE}`,
        wa_id: NEW_PHONE,
        user_id: newUserId,
        previous_user_id: oldUserId,
        type: "user_changed_number",
      },
    });
    expect(valueOf(userId)?.contacts).toBeUndefined();
    expect(shapeOf(firstMessage(userId))).toEqual(shapeOf(SYSTEM_USER_CHANGED_USER_ID_LATE_2026));
    expect(firstMessage(userId)?.system).toEqual({
      body: `User Sheena Nelson changed from ${oldUserId} to ${newUserId}`,
      user_id: newUserId,
      previous_user_id: oldUserId,
      type: "user_changed_user_id",
    });

    // user_id_update: Meta's sample minus the parent (parent BSUIDs are off here).
    const sample = structuredClone(USER_ID_UPDATE);
    delete (sample.entry[0]?.changes[0]?.value.user_id_update[0] as { parent_user_id?: unknown }).parent_user_id;
    expect(shapeOf(update?.body)).toEqual(shapeOf(sample));
    const value = (update?.body as unknown as UserIdUpdatePayload).entry[0]?.changes[0]?.value;
    expect(value?.contacts).toEqual([{ profile: { name: "Sheena Nelson" }, wa_id: NEW_PHONE }]);
    expect(value?.user_id_update).toEqual([
      {
        wa_id: NEW_PHONE,
        detail: "User id for Sheena Nelson has been updated.",
        user_id: { previous: oldUserId, current: newUserId },
        timestamp: "1780000300",
      },
    ]);
    const kinds = (await control<WebhookRecord[]>(sandbox.url, "/webhooks")).body.map((w) => w.kind);
    expect(kinds).toEqual(["inbound", "inbound", "inbound", "user_id_update"]);
  });

  it("carries the parent BSUID change as {previous, current}, like the sample", async () => {
    await control(sandbox.url, "/portfolios", { parent_user_ids: true });
    await inbound({ from: OLD_PHONE, name: "Sheena Nelson" });
    const oldParent = valueOf(receiver.received[0])?.contacts?.[0]?.parent_user_id ?? "";
    expect(oldParent).toMatch(/^US\.ENT\.\d{18}$/);
    receiver.received.length = 0;

    const answer = await change({ user: { phone: OLD_PHONE }, user_id_update: true, system_messages: false });
    expect(answer.body.webhooks.map((w) => w.type)).toEqual(["user_id_update"]);
    expect(shapeOf(receiver.received[0]?.body)).toEqual(shapeOf(USER_ID_UPDATE));
    const item = (receiver.received[0]?.body as unknown as UserIdUpdatePayload).entry[0]?.changes[0]?.value
      .user_id_update[0];
    expect(item?.parent_user_id).toEqual({ previous: oldParent, current: answer.body.user.parent_user_id });
    expect(answer.body.user.parent_user_id).not.toBe(oldParent);
  });

  it("uses the new ids afterwards and keeps the user's window; the old BSUID and phone no longer reach it", async () => {
    await inbound({ from: OLD_PHONE });
    const oldUserId = valueOf(receiver.received[0])?.contacts?.[0]?.user_id ?? "";
    const { user } = (await change({ user: { phone: OLD_PHONE }, phone: NEW_PHONE })).body;
    receiver.received.length = 0;

    // The window opened before the change still holds for the same user under its new phone and BSUID.
    expect((await sendMessage(sandbox.url, text(NEW_PHONE, "Olá"))).status).toBe(200);
    const byBsuid = { messaging_product: "whatsapp", recipient: user.user_id, type: "text", text: { body: "Olá" } };
    expect((await sendMessage(sandbox.url, byBsuid)).status).toBe(200);
    const stale = await sendMessage(sandbox.url, { ...byBsuid, recipient: oldUserId });
    expect(stale.body.error?.code).toBe(131009);
    // The old number is someone else now: no window with this business.
    expect((await sendMessage(sandbox.url, text(OLD_PHONE, "Olá"))).body.error?.code).toBe(131047);

    await inbound({ from: NEW_PHONE });
    expect(firstMessage(receiver.received[0])).toMatchObject({ from: NEW_PHONE, from_user_id: user.user_id });
  });

  it("for a user whose phone this number cannot see: only user_changed_user_id and user_id_update, no phone anywhere", async () => {
    await control(sandbox.url, "/users", { username: "pablomorales", name: "Pablo M.", phone: OLD_PHONE });
    await inbound({ username: "pablomorales" });
    receiver.received.length = 0;

    const answer = await change({ user: { username: "pablomorales" }, phone: NEW_PHONE });
    expect(answer.body.webhooks.map((w) => w.type)).toEqual(["user_changed_user_id", "user_id_update"]);
    const [system, update] = receiver.received;
    expect(firstMessage(system)).not.toHaveProperty("from");
    expect(firstMessage(system)?.system).not.toHaveProperty("wa_id");
    const value = (update?.body as unknown as UserIdUpdatePayload).entry[0]?.changes[0]?.value;
    expect(value?.contacts).toEqual([{ profile: { name: "Pablo M." } }]);
    expect(value?.user_id_update[0]).not.toHaveProperty("wa_id");
    expect(receiver.received.map((h) => h.raw.toString()).join()).not.toMatch(/1555123/);
  });

  it("notifies every number the user talked to, or the ones named, and takes an explicit new BSUID", async () => {
    await inbound({ from: OLD_PHONE });
    await inbound({ from: OLD_PHONE }, SECOND_NUMBER);
    receiver.received.length = 0;
    const all = await change({
      user: { phone: OLD_PHONE },
      system_messages: false,
      user_id: "US.99887766554433221100",
    });
    expect(all.body.webhooks.map((w) => w.phone_number_id).sort()).toEqual([PHONE_ID, SECOND_NUMBER].sort());
    expect(all.body.user.user_id).toBe("US.99887766554433221100");
    expect(hooksOf(receiver.received, "user_id_update")).toHaveLength(2);

    const one = await change({ user: { user_id: "US.99887766554433221100" }, phone_number_ids: [SECOND_NUMBER] });
    expect(new Set(one.body.webhooks.map((w) => w.phone_number_id))).toEqual(new Set([SECOND_NUMBER]));
  });

  it("refuses an unknown user, a phone of another registered user and a BSUID already used", async () => {
    expect((await change({ user: { username: "ninguem" } })).status).toBe(404);
    await control(sandbox.url, "/users", { phone: NEW_PHONE, username: "outra" });
    await inbound({ from: OLD_PHONE });
    const oldUserId = valueOf(receiver.received[0])?.contacts?.[0]?.user_id ?? "";
    expect((await change({ user: { phone: OLD_PHONE }, phone: NEW_PHONE })).status).toBe(409);
    expect((await change({ user: { phone: OLD_PHONE }, phone: OLD_PHONE })).status).toBe(409);
    expect((await change({ user: { phone: OLD_PHONE } })).status).toBe(200);
    // The BSUID it had before is retired: it cannot be given back.
    expect((await change({ user: { phone: OLD_PHONE }, user_id: oldUserId })).status).toBe(409);
    expect((await change({ user: { phone: OLD_PHONE }, bogus: true })).status).toBe(400);
  });
});
