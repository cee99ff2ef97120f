import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { verifyMetaSignature } from "@gw/signer";
import type { RunningSandbox, SentMessage, UserPreferencesPayload, WebhookRecord } from "../src/index.ts";
import {
  APP_SECRET,
  bodyParams,
  control,
  PHONE_ID,
  sendMessage,
  start,
  startReceiver,
  statusesOf,
  template,
  type ReceivedWebhook,
} from "./helpers.ts";

// Meta's user_preferences webhook (a contact stops or resumes marketing messages) emitted through the control API,
// and what follows for sends: a marketing template to a stopped contact is accepted, then reported `failed` with
// 131050 (nothing delivered); utility templates still go; after `resume` marketing goes again.
const TO = "5511988887777";
const OTHER_NUMBER = "106540352249999";
const WABA = "102290129340398";

const coupon = {
  type: "button",
  sub_type: "COPY_CODE",
  index: 1,
  parameters: [{ type: "coupon_code", coupon_code: "PROMO10" }],
};
const marketing = (to = TO) => template(to, "cupom_desconto", [bodyParams("PROMO10", "10%"), coupon]);
const utility = (to = TO) => template(to, "hello_world", [], "en_US");

function preferencesOf(hooks: ReceivedWebhook[]): UserPreferencesPayload[] {
  return hooks
    .map((h) => h.body as unknown as UserPreferencesPayload)
    .filter((body) => body.entry[0]?.changes[0]?.field === "user_preferences");
}

describe("user_preferences webhooks and 131050", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await start({
      webhookUrl: receiver.url,
      webhookRetries: false,
      statusDelaysMs: { sent: 0, delivered: 5, read: 10 },
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

  it("posts a signed user_preferences webhook with Meta's shape for stop and for resume", async () => {
    const stop = await control<{ webhook_status: number; payload: UserPreferencesPayload }>(
      sandbox.url,
      "/user-preferences",
      { phone_number_id: PHONE_ID, wa_id: "+55 11 98888-7777", value: "stop", name: "Maria", timestamp: 1739321024 },
    );
    expect(stop.status).toBe(200);
    expect(stop.body.webhook_status).toBe(200);
    expect(receiver.received).toHaveLength(1);
    const hook = receiver.received[0];
    expect(hook && verifyMetaSignature(APP_SECRET, hook.raw, String(hook.headers["x-hub-signature-256"]))).toBe(true);
    expect(hook?.body).toEqual({
      object: "whatsapp_business_account",
      entry: [
        {
          id: WABA,
          changes: [
            {
              field: "user_preferences",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: expect.stringMatching(/^1555\d{7}$/), phone_number_id: PHONE_ID },
                contacts: [{ profile: { name: "Maria" }, wa_id: TO, user_id: expect.stringMatching(/^BR\.\d+$/) }],
                user_preferences: [
                  {
                    wa_id: TO,
                    user_id: expect.stringMatching(/^BR\.\d+$/),
                    detail: "User requested to stop marketing messages",
                    category: "marketing_messages",
                    value: "stop",
                    timestamp: 1739321024,
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    expect(stop.body.payload).toEqual(hook?.body);

    await control(sandbox.url, "/user-preferences", { phone_number_id: PHONE_ID, wa_id: TO, value: "resume" });
    const [, resumed] = preferencesOf(receiver.received);
    const item = resumed?.entry[0]?.changes[0]?.value.user_preferences[0];
    expect(item).toEqual({
      wa_id: TO,
      user_id: expect.stringMatching(/^BR\.\d+$/),
      detail: "User requested to resume marketing messages",
      category: "marketing_messages",
      value: "resume",
      timestamp: expect.any(Number),
    });
    const webhooks = (await control<WebhookRecord[]>(sandbox.url, "/webhooks")).body;
    expect(webhooks.map((w) => w.kind)).toEqual(["user_preferences", "user_preferences"]);
  });

  it("a marketing template to a stopped contact is accepted, then only `failed` with 131050; utility still goes", async () => {
    await control(sandbox.url, "/user-preferences", { phone_number_id: PHONE_ID, wa_id: TO, value: "stop" });
    receiver.received.length = 0;

    const refused = await sendMessage(sandbox.url, marketing());
    expect(refused.status).toBe(200);
    const wamid = refused.body.messages?.[0]?.id ?? "";
    expect(refused.body.messages?.[0]).toEqual({ id: wamid, message_status: "accepted" });
    const delivered = (await sendMessage(sandbox.url, utility())).body.messages?.[0]?.id ?? "";

    await receiver.waitFor((all) => statusesOf(all).filter((s) => s.id === delivered).length === 3);
    const ofMarketing = statusesOf(receiver.received).filter((s) => s.id === wamid);
    expect(ofMarketing).toEqual([
      {
        id: wamid,
        status: "failed",
        timestamp: expect.stringMatching(/^\d+$/),
        recipient_id: TO,
        errors: [
          {
            code: 131050,
            title:
              "Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.",
            message:
              "Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.",
            error_data: {
              details:
                "Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.",
            },
            href: "https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/",
          },
        ],
      },
    ]);
    expect(
      statusesOf(receiver.received)
        .filter((s) => s.id === delivered)
        .map((s) => s.status),
    ).toEqual(["sent", "delivered", "read"]);
    // Both sends reached Meta (the sandbox): the refusal is Meta's, after the fact.
    expect((await control<SentMessage[]>(sandbox.url, "/sent")).body.map((s) => s.wamid)).toEqual([wamid, delivered]);
  });

  it("the preference is per contact and business number (the 12-digit Brazilian id is the same contact)", async () => {
    await control(sandbox.url, "/user-preferences", {
      phone_number_id: PHONE_ID,
      wa_id: "551188887777",
      value: "stop",
    });
    const onOther = (await sendMessage(sandbox.url, marketing(), { phoneId: OTHER_NUMBER })).body.messages?.[0]?.id;
    const toOther = (await sendMessage(sandbox.url, marketing("5511977776666"))).body.messages?.[0]?.id;
    const stopped = (await sendMessage(sandbox.url, marketing())).body.messages?.[0]?.id;
    const final = (id: string | undefined, hooks = receiver.received) =>
      statusesOf(hooks)
        .filter((s) => s.id === id)
        .at(-1)?.status;
    await receiver.waitFor((all) => final(stopped, all) !== undefined && final(onOther, all) === "read");
    await receiver.waitFor((all) => final(toOther, all) === "read");
    expect(final(stopped)).toBe("failed");
    expect((await control(sandbox.url, "/user-preferences")).body).toEqual({
      stopped: [{ phone_number_id: PHONE_ID, wa_id: TO, since: expect.any(String) }],
    });
  });

  it("after resume, marketing templates are delivered again", async () => {
    await control(sandbox.url, "/user-preferences", { phone_number_id: PHONE_ID, wa_id: TO, value: "stop" });
    await control(sandbox.url, "/user-preferences", { phone_number_id: PHONE_ID, wa_id: TO, value: "resume" });
    const wamid = (await sendMessage(sandbox.url, marketing())).body.messages?.[0]?.id ?? "";
    await receiver.waitFor((all) => statusesOf(all).some((s) => s.id === wamid && s.status === "read"));
    expect(
      statusesOf(receiver.received)
        .filter((s) => s.id === wamid)
        .map((s) => s.status),
    ).toEqual(["sent", "delivered", "read"]);
    expect((await control(sandbox.url, "/user-preferences")).body).toEqual({ stopped: [] });
  });

  it("webhook: false records the preference without posting anything (the gateway learns it from 131050)", async () => {
    const answer = await control(sandbox.url, "/user-preferences", {
      phone_number_id: PHONE_ID,
      wa_id: TO,
      value: "stop",
      webhook: false,
    });
    expect(answer.body).toEqual({ webhook_status: null, payload: null });
    const wamid = (await sendMessage(sandbox.url, marketing())).body.messages?.[0]?.id ?? "";
    await receiver.waitFor((all) => statusesOf(all).some((s) => s.id === wamid));
    expect(preferencesOf(receiver.received)).toEqual([]);
    expect(statusesOf(receiver.received).map((s) => [s.status, s.errors?.[0]?.code])).toEqual([["failed", 131050]]);
  });

  it("reset forgets the preferences; malformed calls are refused", async () => {
    await control(sandbox.url, "/user-preferences", { phone_number_id: PHONE_ID, wa_id: TO, value: "stop" });
    await control(sandbox.url, "/reset", {});
    expect((await control(sandbox.url, "/user-preferences")).body).toEqual({ stopped: [] });
    for (const body of [
      { phone_number_id: PHONE_ID, wa_id: TO, value: "pause" },
      { phone_number_id: "abc", wa_id: TO, value: "stop" },
      { phone_number_id: PHONE_ID, wa_id: "Maria", value: "stop" },
      { phone_number_id: PHONE_ID, wa_id: TO, value: "stop", category: "marketing_messages" },
    ]) {
      expect((await control(sandbox.url, "/user-preferences", body)).status).toBe(400);
    }
  });
});
