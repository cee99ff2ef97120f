import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import type { RunningSandbox } from "../src/index.ts";
import { control, PHONE_ID, sendMessage, start, startReceiver, template, text, valueOf } from "./helpers.ts";

// When a user with a username shows its phone (meta-2026 §1.3): a message exchanged with its phone by this number
// in the last 30 days, or the portfolio's contact book (filled by such exchanges, emptied when disabled, one entry
// deleted by DELETE /{phone-number-id}/contact_book). Registering a phone user keeps its BSUID and history.
const PHONE = "15551230000";
const SECOND_NUMBER = "106540352248888";
const DAY = 24 * 60 * 60 * 1000;

const user = { username: "pablomorales" };

interface UserView {
  key: string;
  user_id: string;
  parent_user_id: string;
  phone: string | null;
  username: string | null;
  contact_books: string[];
  webhook_identity?: { wa_id: string | null; user_id: string };
}

describe("phone sharing: the 30-day rule and the contact book", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sandbox: RunningSandbox;
  let clock: number;

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await start({ webhookUrl: receiver.url, webhookRetries: false, autoStatuses: false, now: () => clock });
  });
  beforeEach(async () => {
    clock = Date.parse("2026-11-20T12:00:00Z");
    await control(sandbox.url, "/reset", { config: true });
    receiver.received.length = 0;
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  /**
   * The phone a number's webhooks show of the user now (undefined when omitted), read without writing: an inbound
   * message that shows the phone is itself an exchange with it and would restart the 30 days.
   */
  const shownPhone = async (phoneNumberId = PHONE_ID): Promise<string | undefined> => {
    const query = `/users?username=pablomorales&phone_number_id=${phoneNumberId}`;
    const [view] = (await control<{ users: UserView[] }>(sandbox.url, query)).body.users;
    return view?.webhook_identity?.wa_id ?? undefined;
  };
  /** What the next inbound webhook of PHONE_ID shows: the same `wa_id` in contacts and `from` in the message. */
  const inboundPhone = async (): Promise<string | undefined> => {
    receiver.received.length = 0;
    await control(sandbox.url, "/inbound", { phone_number_id: PHONE_ID, ...user, type: "text", text: "Oi" });
    const value = valueOf(receiver.received[0]);
    expect(value?.messages?.[0]?.from).toBe(value?.contacts?.[0]?.wa_id);
    return value?.contacts?.[0]?.wa_id;
  };
  const register = async (body: Record<string, unknown>) => (await control<UserView>(sandbox.url, "/users", body)).body;

  it("shows the phone for 30 days after this number exchanged messages with it (contact book off)", async () => {
    await control(sandbox.url, "/portfolios", { contact_book: false });
    await register({ username: "pablomorales", phone: PHONE });
    expect(await inboundPhone()).toBeUndefined();
    expect(await shownPhone()).toBeUndefined();

    const exchange = (at: number) =>
      control(sandbox.url, "/users/phone-exchange", { user, phone_number_id: PHONE_ID, at: Math.floor(at / 1000) });
    await exchange(clock - 31 * DAY);
    expect(await shownPhone()).toBeUndefined();
    await exchange(clock - 29 * DAY);
    expect(await shownPhone()).toBe(PHONE);
    expect(await inboundPhone()).toBe(PHONE);
    // That message came from the phone and restarted the 30 days: put them back 29 days.
    await exchange(clock - 29 * DAY);
    // Per business number: another number of the same portfolio does not see it.
    expect(await shownPhone(SECOND_NUMBER)).toBeUndefined();
    clock += 2 * DAY;
    expect(await shownPhone()).toBeUndefined();

    // A send to the phone starts the 30 days again.
    expect((await sendMessage(sandbox.url, template(PHONE, "hello_world", [], "en_US"))).status).toBe(200);
    clock += 29 * DAY;
    expect(await shownPhone()).toBe(PHONE);
    await control(sandbox.url, "/users/phone-exchange", { user, phone_number_id: PHONE_ID, at: null });
    expect(await shownPhone()).toBeUndefined();
  });

  it("keeps the phone shared through the contact book, for every number of the portfolio, until deleted", async () => {
    const registered = await register({ username: "pablomorales", phone: PHONE });
    expect((await sendMessage(sandbox.url, template(PHONE, "hello_world", [], "en_US"))).status).toBe(200);
    clock += 90 * DAY;
    expect(await shownPhone()).toBe(PHONE);
    expect(await shownPhone(SECOND_NUMBER)).toBe(PHONE);
    const listed = await control<{ users: UserView[] }>(sandbox.url, "/users?username=pablomorales");
    expect(listed.body.users[0]?.contact_books).toEqual(["102290129340300"]);

    const remove = (bsuid: string) =>
      fetch(`${sandbox.url}/v23.0/${PHONE_ID}/contact_book?messaging_product=whatsapp&bsuid=${bsuid}`, {
        method: "DELETE",
      });
    const parent = await remove(registered.parent_user_id);
    expect(parent.status).toBe(400);
    const deleted = await remove(registered.user_id);
    expect(await deleted.json()).toEqual({ messaging_product: "whatsapp", success: true, deleted: true });
    expect(await shownPhone()).toBeUndefined();
    expect(await (await remove(registered.user_id)).json()).toMatchObject({ deleted: false });

    // Through the control API, in and out again.
    await control(sandbox.url, "/users/contact-book", { user, in_contact_book: true });
    expect(await shownPhone()).toBe(PHONE);
    await control(sandbox.url, "/users/contact-book", { user, phone_number_id: PHONE_ID, in_contact_book: false });
    expect(await shownPhone()).toBeUndefined();
  });

  it("disabling the contact book deletes it and stops filling it", async () => {
    await register({ username: "pablomorales", phone: PHONE });
    await sendMessage(sandbox.url, template(PHONE, "hello_world", [], "en_US"));
    const off = await control<{ contact_book: boolean; contact_book_size: number }>(sandbox.url, "/portfolios", {
      contact_book: false,
    });
    expect(off.body).toMatchObject({ contact_book: false, contact_book_size: 0 });
    clock += 31 * DAY;
    expect(await shownPhone()).toBeUndefined();
    const refused = await control(sandbox.url, "/users/contact-book", { user, in_contact_book: true });
    expect(refused.status).toBe(409);
  });

  it("never shows a withheld phone, and always shows the phone of a user without a username", async () => {
    const hidden = await register({ username: "semtelefone" });
    expect(hidden.phone).toBeNull();
    expect(
      (await control(sandbox.url, "/users/contact-book", { user: { username: "semtelefone" }, in_contact_book: true }))
        .status,
    ).toBe(409);
    await register({ username: "pablomorales", phone: PHONE });
    expect(await shownPhone()).toBeUndefined();
    // Dropping the username (same BSUID) shows the phone again.
    const dropped = await register({ phone: PHONE, username: null });
    expect(dropped.username).toBeNull();
    receiver.received.length = 0;
    await control(sandbox.url, "/inbound", { phone_number_id: PHONE_ID, from: PHONE, type: "text", text: "Oi" });
    expect(valueOf(receiver.received[0])?.contacts?.[0]).toMatchObject({ wa_id: PHONE, user_id: dropped.user_id });
  });

  it("registering a phone user keeps its BSUID and window; phone or BSUID changes go through identity-change", async () => {
    await control(sandbox.url, "/inbound", { phone_number_id: PHONE_ID, from: PHONE, type: "text", text: "Oi" });
    const before = valueOf(receiver.received[0])?.contacts?.[0]?.user_id;
    const registered = await register({ phone: PHONE, username: "pablomorales", name: "Pablo M." });
    expect(registered.key).toMatch(/^u\d+$/);
    expect(registered.user_id).toBe(before);
    // The window the phone user opened is the registered user's.
    expect((await sendMessage(sandbox.url, text(PHONE, "Olá"))).status).toBe(200);

    const view = await control<{ users: UserView[] }>(
      sandbox.url,
      `/users?user_id=${before}&phone_number_id=${PHONE_ID}`,
    );
    expect(view.body.users[0]?.webhook_identity).toMatchObject({ wa_id: PHONE, user_id: before });
    const changed = await control<{ error: { message: string } }>(sandbox.url, "/users", {
      username: "pablomorales",
      phone: "15559990000",
    });
    expect(changed.status).toBe(409);
    expect(changed.body.error.message).toMatch(/identity-change/);
    expect((await control(sandbox.url, "/users", { username: "pablomorales", user_id: "US.123" })).status).toBe(409);
    const clash = await control(sandbox.url, "/users", { phone: "15559990000", username: "pablomorales2" });
    expect(clash.status).toBe(200);
    expect((await control(sandbox.url, "/users", { phone: "15559990000", username: "pablomorales" })).status).toBe(409);
    expect((await control(sandbox.url, "/users", { username: "x" })).status).toBe(400);
    const all = await control<{ users: UserView[] }>(sandbox.url, "/users");
    expect(all.body.users.map((u) => u.username).sort()).toEqual(["pablomorales", "pablomorales2"]);
  });
});
