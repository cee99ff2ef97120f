import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { verifyMetaSignature } from "@gw/signer";
import type { RunningSandbox } from "../src/index.ts";
import {
  APP_SECRET,
  bodyParams,
  control,
  PHONE_ID,
  sendMessage,
  start,
  startReceiver,
  statusHooksOf,
  template,
  valueOf,
  type ReceivedWebhook,
  type StatusEntry,
} from "./helpers.ts";
import {
  INBOUND_USERNAME_ONLY,
  shapeOf,
  STATUS_DELIVERED_TO_BSUID,
  STATUS_FAILED_TO_PHONE,
  STATUS_SENT_WITH_PRICING,
} from "./meta-2026-samples.ts";

// BSUIDs in every webhook (meta-2026 §1.4, §1.5, Appendix A): phone users get a deterministic BSUID, users with a
// username keep their phone out of webhooks, and statuses carry the recipient's ids, a sibling `contacts` array and
// one `pricing` object per message.
const TO = "5511988887777";
const FAILS = "5511900001111";
const BSUID = /^BR\.\d{18}$/;

interface UserView {
  key: string;
  user_id: string;
  parent_user_id: string;
  phone: string | null;
  username: string | null;
}

const coupon = {
  type: "button",
  sub_type: "COPY_CODE",
  index: 1,
  parameters: [{ type: "coupon_code", coupon_code: "PROMO10" }],
};
const otpButton = { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: "482913" }] };

function statuses(hook: ReceivedWebhook | undefined): StatusEntry[] {
  return (valueOf(hook)?.statuses ?? []) as StatusEntry[];
}

describe("BSUID fields in inbound and status webhooks", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await start({
      webhookUrl: receiver.url,
      webhookRetries: false,
      statusDelaysMs: { sent: 0, delivered: 5, read: 10 },
      failAfterSend: [FAILS],
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

  const register = async (body: Record<string, unknown>): Promise<UserView> => {
    const answer = await control<UserView>(sandbox.url, "/users", body);
    expect(answer.status).toBe(200);
    return answer.body;
  };
  const inbound = (body: Record<string, unknown>) =>
    control<{ id: string; webhook_status: number }>(sandbox.url, "/inbound", { phone_number_id: PHONE_ID, ...body });
  const allStatuses = async (wamid: string, last = "read"): Promise<ReceivedWebhook[]> => {
    await receiver.waitFor((all) => statusHooksOf(all, wamid).some((h) => statuses(h).some((s) => s.status === last)));
    return statusHooksOf(receiver.received, wamid);
  };

  it("gives a phone user a deterministic BSUID of its country, the same in every webhook and every sandbox", async () => {
    await inbound({ from: "+55 11 98888-7777", type: "text", text: "Oi" });
    const value = valueOf(receiver.received[0]);
    const userId = value?.contacts?.[0]?.user_id ?? "";
    expect(userId).toMatch(BSUID);
    expect(value?.messages?.[0]).toMatchObject({ from: TO, from_user_id: userId });

    const wamid =
      (await sendMessage(sandbox.url, template(TO, "hello_world", [], "en_US"))).body.messages?.[0]?.id ?? "";
    for (const hook of await allStatuses(wamid)) {
      expect(statuses(hook)[0]).toMatchObject({ recipient_id: TO, recipient_user_id: userId });
      expect(valueOf(hook)?.contacts).toEqual([{ profile: { name: "Cliente Sandbox" }, wa_id: TO, user_id: userId }]);
    }

    // Another sandbox (another run of the tests, a restarted process) derives the same BSUID; the 12-digit form of
    // a Brazilian number names the same user.
    const other = await start({});
    try {
      const looked = await control<{ users: UserView[] }>(other.url, "/users?phone=551188887777");
      expect(looked.body.users[0]?.user_id).toBe(userId);
    } finally {
      await other.close();
    }
  });

  it("posts a username-only user's message with the shape of meta-2026's sample: no phone field at all", async () => {
    await control(sandbox.url, "/portfolios", { parent_user_ids: true });
    const user = await register({ username: "realsheenanelson", name: "Sheena Nelson", country: "US" });
    expect(user.phone).toBeNull();
    expect(user.user_id).toMatch(/^US\.\d{20}$/);
    expect(user.parent_user_id).toMatch(/^US\.ENT\.\d{20}$/);

    const answer = await inbound({
      username: "realsheenanelson",
      type: "text",
      text: "Does it come in another color?",
    });
    expect(answer.body.webhook_status).toBe(200);
    const hook = receiver.received[0];
    expect(hook && verifyMetaSignature(APP_SECRET, hook.raw, String(hook.headers["x-hub-signature-256"]))).toBe(true);
    expect(shapeOf(hook?.body)).toEqual(shapeOf(INBOUND_USERNAME_ONLY));
    const value = valueOf(hook);
    expect(value?.contacts).toEqual([
      {
        profile: { name: "Sheena Nelson", username: "realsheenanelson" },
        user_id: user.user_id,
        parent_user_id: user.parent_user_id,
      },
    ]);
    expect(value?.messages?.[0]).toMatchObject({
      from_user_id: user.user_id,
      from_parent_user_id: user.parent_user_id,
      id: answer.body.id,
    });
    // Omitted, never empty strings.
    expect(hook?.raw.toString()).not.toMatch(/"(wa_id|from)"/);
  });

  it("writes every inbound type the control API supports from a username-only user, by username or by BSUID", async () => {
    const user = await register({ username: "pablomorales", name: "Pablo M." });
    const types: Record<string, unknown>[] = [
      { type: "image", media: { caption: "foto" } },
      { type: "document" },
      { type: "audio" },
      { type: "video" },
      { type: "sticker" },
      { type: "location" },
      { type: "contacts" },
      { type: "button", button: { text: "Sim" } },
      { type: "interactive", interactive: { title: "Confirmar" } },
      { type: "unsupported" },
    ];
    for (const [i, body] of types.entries()) {
      const sender = i % 2 === 0 ? { username: "PabloMorales" } : { user_id: user.user_id };
      expect((await inbound({ ...sender, ...body })).status).toBe(200);
    }
    expect(receiver.received).toHaveLength(types.length);
    for (const [i, hook] of receiver.received.entries()) {
      const message = valueOf(hook)?.messages?.[0];
      expect(message).toMatchObject({ from_user_id: user.user_id, type: types[i]?.type });
      expect(message && "from" in message).toBe(false);
      expect(valueOf(hook)?.contacts?.[0]).toEqual({
        profile: { name: "Pablo M.", username: "pablomorales" },
        user_id: user.user_id,
      });
    }
  });

  it("refuses an inbound message from an unknown BSUID or username, and one naming two senders", async () => {
    expect((await inbound({ user_id: "BR.123", type: "text", text: "oi" })).status).toBe(404);
    expect((await inbound({ username: "ninguem", type: "text", text: "oi" })).status).toBe(404);
    expect((await inbound({ from: TO, username: "ninguem", type: "text", text: "oi" })).status).toBe(400);
    expect(receiver.received).toHaveLength(0);
  });

  it("statuses of a send to a BSUID have the sample's shape: recipient_user_id and contacts, no recipient_id", async () => {
    await control(sandbox.url, "/portfolios", { parent_user_ids: true });
    const user = await register({ username: "pablomorales", name: "Pablo M.", phone: "+1 555 123 0000" });
    await inbound({ username: "pablomorales", type: "text", text: "Oi" });
    const send = await sendMessage(sandbox.url, {
      messaging_product: "whatsapp",
      recipient_type: "individual",
      recipient: user.user_id,
      type: "template",
      template: {
        name: "cupom_desconto",
        language: { code: "pt_BR" },
        components: [bodyParams("PROMO10", "10%"), coupon],
      },
    });
    expect(send.status).toBe(200);
    const wamid = send.body.messages?.[0]?.id ?? "";
    const hooks = await allStatuses(wamid);
    expect(hooks.map((h) => statuses(h)[0]?.status)).toEqual(["sent", "delivered", "read"]);

    const [sent, delivered, read] = hooks;
    // Meta's sample carries `pricing` on delivered; the sandbox puts it on `sent` only (one per message).
    const { pricing: samplePricing, ...sampleStatus } = STATUS_DELIVERED_TO_BSUID.entry[0]?.changes[0]?.value
      .statuses[0] as Record<string, unknown>;
    const sample = structuredClone(STATUS_DELIVERED_TO_BSUID);
    sample.entry[0]?.changes[0]?.value.statuses.splice(0, 1, sampleStatus as never);
    expect(shapeOf(delivered?.body)).toEqual(shapeOf(sample));
    expect(shapeOf(statuses(sent)[0]?.pricing)).toEqual(shapeOf(samplePricing));
    expect(statuses(sent)[0]?.pricing).toEqual({
      billable: true,
      pricing_model: "PMP",
      type: "regular",
      category: "marketing",
    });
    for (const hook of hooks) {
      const [status] = statuses(hook);
      expect(status).toMatchObject({ recipient_user_id: user.user_id, recipient_parent_user_id: user.parent_user_id });
      expect(status && "recipient_id" in status).toBe(false);
      expect(status?.pricing === undefined).toBe(hook !== sent);
    }
    // The username only on delivered and read; the phone (known to the sandbox, never exchanged) nowhere.
    const contact = { user_id: user.user_id, parent_user_id: user.parent_user_id };
    expect(valueOf(sent)?.contacts).toEqual([{ profile: { name: "Pablo M." }, ...contact }]);
    for (const hook of [delivered, read]) {
      expect(valueOf(hook)?.contacts).toEqual([
        { profile: { name: "Pablo M.", username: "pablomorales" }, ...contact },
      ]);
    }
    expect(hooks.map((h) => h.raw.toString()).join()).not.toMatch(/15551230000/);
  });

  it("a send to the phone of a username user shows the phone from then on (the 30-day rule)", async () => {
    const user = await register({ username: "pablomorales", name: "Pablo M.", phone: "15551230000" });
    await inbound({ username: "pablomorales", type: "text", text: "Oi" });
    expect(valueOf(receiver.received[0])?.contacts?.[0]?.wa_id).toBeUndefined();

    const send = await sendMessage(sandbox.url, template("15551230000", "hello_world", [], "en_US"));
    const hooks = await allStatuses(send.body.messages?.[0]?.id ?? "");
    for (const hook of hooks) {
      expect(statuses(hook)[0]).toMatchObject({ recipient_id: "15551230000", recipient_user_id: user.user_id });
      expect(valueOf(hook)?.contacts?.[0]?.wa_id).toBe("15551230000");
    }
    receiver.received.length = 0;
    await inbound({ username: "pablomorales", type: "text", text: "De novo" });
    expect(valueOf(receiver.received[0])?.messages?.[0]).toMatchObject({
      from: "15551230000",
      from_user_id: user.user_id,
    });
  });

  it("a failed status of a phone-addressed send has the sample's shape: no BSUID, no contacts", async () => {
    const wamid =
      (await sendMessage(sandbox.url, template(FAILS, "hello_world", [], "en_US"))).body.messages?.[0]?.id ?? "";
    const hooks = await allStatuses(wamid, "failed");
    const [sent, failed] = hooks;
    expect(shapeOf(statuses(failed)[0])).toEqual(shapeOf(STATUS_FAILED_TO_PHONE));
    expect(valueOf(failed)?.contacts).toBeUndefined();
    expect(shapeOf(statuses(sent)[0])).toEqual(shapeOf(STATUS_SENT_WITH_PRICING));
  });

  it("prices each message once, on `sent`, by category (inside the window too, since October 2026)", async () => {
    const send = async (body: Record<string, unknown>): Promise<string> => {
      const answer = await sendMessage(sandbox.url, body);
      expect(answer.status).toBe(200);
      return answer.body.messages?.[0]?.id ?? "";
    };
    const pricingOf = async (wamid: string) => {
      const hooks = await allStatuses(wamid);
      const priced = hooks.flatMap(statuses).filter((s) => s.pricing !== undefined);
      expect(priced.map((s) => s.status)).toEqual(["sent"]);
      return priced[0]?.pricing;
    };
    const regular = (category: string) => ({ billable: true, pricing_model: "PMP", type: "regular", category });

    const outOfWindow = await send(template(TO, "hello_world", [], "en_US"));
    expect(await pricingOf(outOfWindow)).toEqual(regular("utility"));
    const otp = await send(template(TO, "codigo_verificacao", [bodyParams("482913"), otpButton]));
    expect(await pricingOf(otp)).toEqual(regular("authentication"));

    await inbound({ from: TO, type: "text", text: "Oi" });
    // Inside the window, since 1 Oct 2026, utility templates and service messages are charged too (pricing.ts).
    expect(await pricingOf(await send(template(TO, "hello_world", [], "en_US")))).toEqual(regular("utility"));
    const marketing = template(TO, "cupom_desconto", [bodyParams("PROMO10", "10%"), coupon]);
    expect(await pricingOf(await send(marketing))).toEqual(regular("marketing"));
    const text = { messaging_product: "whatsapp", to: TO, type: "text", text: { body: "Olá" } };
    expect(await pricingOf(await send(text))).toEqual(regular("service"));

    await control(sandbox.url, "/config", { authenticationInternational: ["BR"] });
    const international = await send(template(TO, "codigo_verificacao", [bodyParams("482913"), otpButton]));
    expect(await pricingOf(international)).toEqual(regular("authentication-international"));
  });

  it("collects the recipients of a batched payload in one contacts array, username from delivered or read", async () => {
    // A window wide enough that both sends' statuses fall in it on a loaded machine.
    await control(sandbox.url, "/config", { statusBatchMs: 1_500, statusDelaysMs: { sent: 0, delivered: 0, read: 0 } });
    const user = await register({ username: "pablomorales", name: "Pablo M." });
    await inbound({ username: "pablomorales", type: "text", text: "Oi" });
    await inbound({ from: TO, type: "text", text: "Oi" });
    receiver.received.length = 0;
    const text = (to: Record<string, string>) => ({
      messaging_product: "whatsapp",
      ...to,
      type: "text",
      text: { body: "Olá" },
    });
    await Promise.all([
      sendMessage(sandbox.url, text({ recipient: user.user_id })),
      sendMessage(sandbox.url, text({ to: TO })),
    ]);
    await receiver.waitFor((all) => all.flatMap((h) => statuses(h)).length === 6);
    const [hook] = receiver.received;
    expect(receiver.received).toHaveLength(1);
    const contacts = valueOf(hook)?.contacts ?? [];
    expect(contacts).toHaveLength(2);
    expect(contacts.find((c) => c.user_id === user.user_id)?.profile).toEqual({
      name: "Pablo M.",
      username: "pablomorales",
    });
    expect(contacts.find((c) => c.wa_id === TO)?.user_id).toMatch(BSUID);
  });
});
