import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { verifyMetaSignature } from "@gw/signer";
import { FIXTURE_TEMPLATES, type RunningSandbox, type WebhookRecord } from "../src/index.ts";
import {
  APP_SECRET,
  bodyParams,
  control,
  getJson,
  PHONE_ID,
  pendingOf,
  sendMessage,
  start,
  startReceiver,
  template,
  TOKEN,
  type ReceivedWebhook,
} from "./helpers.ts";
import {
  ACCOUNT_UPDATE_DISABLED,
  BUSINESS_CAPABILITY,
  QUALITY_THROUGHPUT_UPGRADE,
  shapeOf,
  TEMPLATE_CATEGORY_COMPLETED,
  TEMPLATE_CATEGORY_IMPENDING_KEYS,
  TEMPLATE_COMPONENTS,
} from "./meta-2026-samples.ts";

// Account and number health webhooks (meta-2026 §3) emitted through the control API: WABA-level payloads
// (`entry[].id` the WABA, `entry[].time` in seconds, no metadata), signed and redelivered like every webhook, and
// the number's node (quality, tier, throughput) and rate following them.
const WABA = "102290129340398";

interface WabaHook {
  object: string;
  entry: { id: string; time: number; changes: { field: string; value: Record<string, unknown> }[] }[];
}

function wabaHook(hook: ReceivedWebhook | undefined): WabaHook {
  return hook?.body as unknown as WabaHook;
}

function valueOf(hook: ReceivedWebhook | undefined): Record<string, unknown> | undefined {
  return wabaHook(hook).entry[0]?.changes[0]?.value;
}

describe("account and number health webhooks", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await start({ webhookUrl: receiver.url, webhookRetries: false, accessToken: TOKEN, autoStatuses: false });
  });
  afterEach(async () => {
    await control(sandbox.url, "/reset", { config: true });
    receiver.received.length = 0;
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  function expectWabaLevel(hook: ReceivedWebhook | undefined, field: string): void {
    expect(hook && verifyMetaSignature(APP_SECRET, hook.raw, String(hook.headers["x-hub-signature-256"]))).toBe(true);
    const body = wabaHook(hook);
    expect(body.object).toBe("whatsapp_business_account");
    expect(body.entry[0]?.id).toBe(WABA);
    expect(Number.isInteger(body.entry[0]?.time)).toBe(true);
    expect(String(body.entry[0]?.time)).toMatch(/^\d{10}$/);
    expect(body.entry[0]?.changes[0]?.field).toBe(field);
    expect(valueOf(hook)).not.toHaveProperty("metadata");
    expect(valueOf(hook)).not.toHaveProperty("messaging_product");
  }

  it("posts account_update DISABLED_UPDATE with ban_info, shaped like the sample", async () => {
    const answer = await control(sandbox.url, "/account-update", {
      event: "DISABLED_UPDATE",
      ban_info: { waba_ban_state: "SCHEDULE_FOR_DISABLE", waba_ban_date: "June 1, 2026" },
    });
    expect(answer.body.webhook_status).toBe(200);
    expectWabaLevel(receiver.received[0], "account_update");
    expect(shapeOf(receiver.received[0]?.body)).toEqual(shapeOf(ACCOUNT_UPDATE_DISABLED));
    expect(valueOf(receiver.received[0])).toEqual(ACCOUNT_UPDATE_DISABLED.entry[0]?.changes[0]?.value);
    const records = (await control<WebhookRecord[]>(sandbox.url, "/webhooks")).body;
    expect(records.map((r) => r.kind)).toEqual(["account"]);
  });

  it("fills Meta's keys for each known event and passes unknown events through as given", async () => {
    const events: [string, Record<string, unknown>][] = [
      [
        "DISABLED_UPDATE",
        { ban_info: { waba_ban_state: "DISABLE", waba_ban_date: expect.stringMatching(/^\w+ \d+, \d{4}$/) } },
      ],
      ["ACCOUNT_VIOLATION", { violation_info: { violation_type: expect.any(String) } }],
      [
        "ACCOUNT_RESTRICTION",
        {
          restriction_info: [
            { restriction_type: "RESTRICTED_BIZ_INITIATED_MESSAGING", expiration: expect.any(Number) },
          ],
        },
      ],
      ["ACCOUNT_DELETED", {}],
      ["PARTNER_REMOVED", { waba_info: { waba_id: WABA, owner_business_id: "102290129340300" } }],
      [
        "VOLUME_BASED_PRICING_TIER_UPDATE",
        {
          volume_tier_info: {
            tier_update_time: expect.any(Number),
            pricing_category: "UTILITY",
            tier: "25000001:50000000",
            effective_month: expect.stringMatching(/^\d{4}-\d{2}$/),
            region: expect.any(String),
          },
        },
      ],
      ["SOMETHING_META_ADDS_LATER", {}],
    ];
    for (const [event] of events) expect((await control(sandbox.url, "/account-update", { event })).status).toBe(200);
    expect(receiver.received.map((hook) => valueOf(hook))).toEqual(events.map(([event, rest]) => ({ event, ...rest })));

    receiver.received.length = 0;
    await control(sandbox.url, "/account-update", {
      event: "SOMETHING_META_ADDS_LATER",
      novelty: { level: 3 },
      waba_id: "555",
    });
    expect(wabaHook(receiver.received[0]).entry[0]?.id).toBe("555");
    expect(valueOf(receiver.received[0])).toEqual({ event: "SOMETHING_META_ADDS_LATER", novelty: { level: 3 } });
    expect((await control(sandbox.url, "/account-update", { event: "lower case" })).status).toBe(400);
  });

  it("THROUGHPUT_UPGRADE posts the sample's shape and moves the number to 1,000 msg/s, HIGH and unlimited", async () => {
    const fields = "throughput,messaging_limit_tier,whatsapp_business_manager_messaging_limit,quality_rating";
    const before = await getJson(`${sandbox.url}/v23.0/${PHONE_ID}?fields=${fields}`, TOKEN);
    expect(before.body).toMatchObject({ throughput: { level: "STANDARD" }, messaging_limit_tier: "TIER_1K" });

    const answer = await control(sandbox.url, "/numbers/quality-update", {
      phone_number_id: PHONE_ID,
      event: "THROUGHPUT_UPGRADE",
    });
    expect(answer.body).toMatchObject({ webhook_status: 200, rate_per_second: 1000 });
    expectWabaLevel(receiver.received[0], "phone_number_quality_update");
    expect(shapeOf(receiver.received[0]?.body)).toEqual(shapeOf(QUALITY_THROUGHPUT_UPGRADE));
    expect(valueOf(receiver.received[0])).toEqual({
      display_phone_number: expect.stringMatching(/^1555\d{7}$/),
      event: "THROUGHPUT_UPGRADE",
      max_daily_conversations_per_business: "TIER_UNLIMITED",
    });

    const after = await getJson(`${sandbox.url}/v23.0/${PHONE_ID}?fields=${fields}`, TOKEN);
    expect(after.body).toEqual({
      throughput: { level: "HIGH" },
      messaging_limit_tier: "TIER_UNLIMITED",
      whatsapp_business_manager_messaging_limit: "TIER_UNLIMITED",
      quality_rating: "GREEN",
      id: PHONE_ID,
    });
    const config = await control<{ numberRates: Record<string, number> }>(sandbox.url, "/config");
    expect(config.body.numberRates[PHONE_ID]).toBe(1000);
  });

  it("replaces the number's own lower rate: sends refused with 130429 before the upgrade go through after it", async () => {
    const clock = Date.parse("2026-11-20T12:00:00Z");
    // A frozen clock: every send falls in the same second.
    const timed = await start({ now: () => clock, numberRates: { [PHONE_ID]: 2 } });
    try {
      const hello = template("5511988887777", "hello_world", [], "en_US");
      const burst = async (n: number) => {
        const answers: number[] = [];
        for (let i = 0; i < n; i += 1) answers.push((await sendMessage(timed.url, hello)).status);
        return answers;
      };
      expect(await burst(3)).toEqual([200, 200, 400]);
      await control(timed.url, "/numbers/quality-update", { phone_number_id: PHONE_ID, event: "THROUGHPUT_UPGRADE" });
      expect(await burst(20)).toEqual(Array<number>(20).fill(200));
      const config = await control<{ numberRates: Record<string, number> }>(timed.url, "/config");
      expect(config.body.numberRates[PHONE_ID]).toBe(1000);
    } finally {
      await timed.close();
    }
  });

  it("sets a quality drop on the number, with or without a webhook, and keeps the legacy keys only when given", async () => {
    await control(sandbox.url, "/numbers", { phone_number_id: PHONE_ID, quality_rating: "YELLOW" });
    expect(receiver.received).toHaveLength(0);
    const answer = await control<{ number: Record<string, unknown> }>(sandbox.url, "/numbers/quality-update", {
      phone_number_id: PHONE_ID,
      event: "DOWNGRADE",
      quality_rating: "RED",
      max_daily_conversations_per_business: "TIER_250",
      current_limit: "TIER_250",
    });
    expect(answer.body.number).toMatchObject({ quality_rating: "RED", messaging_limit_tier: "TIER_250" });
    expect(valueOf(receiver.received[0])).toEqual({
      display_phone_number: expect.any(String),
      event: "DOWNGRADE",
      max_daily_conversations_per_business: "TIER_250",
      current_limit: "TIER_250",
    });
    const node = await getJson(`${sandbox.url}/v23.0/${PHONE_ID}?fields=quality_rating,throughput`, TOKEN);
    expect(node.body).toMatchObject({ quality_rating: "RED", throughput: { level: "STANDARD" } });
  });

  it("posts business_capability_update like the sample and the portfolio's numbers report the new limit", async () => {
    await control(sandbox.url, "/numbers", { phone_number_id: PHONE_ID, messaging_limit_tier: "TIER_250" });
    const answer = await control(sandbox.url, "/business-capability", {
      max_daily_conversations_per_business: "TIER_10K",
    });
    expect(answer.body.webhook_status).toBe(200);
    expectWabaLevel(receiver.received[0], "business_capability_update");
    expect(valueOf(receiver.received[0])).toEqual(BUSINESS_CAPABILITY.entry[0]?.changes[0]?.value);
    expect(shapeOf(receiver.received[0]?.body)).toEqual(shapeOf(BUSINESS_CAPABILITY));
    for (const id of [PHONE_ID, "106540352247777"]) {
      const node = await getJson(`${sandbox.url}/v23.0/${id}?fields=messaging_limit_tier`, TOKEN);
      expect(node.body).toMatchObject({ messaging_limit_tier: "TIER_10K" });
    }
    // Meta's own example sends the number: accepted and mapped.
    await control(sandbox.url, "/business-capability", { max_daily_conversations_per_business: 2000 });
    expect(valueOf(receiver.received[1])).toEqual({
      max_daily_conversations_per_business: 2000,
      max_phone_numbers_per_waba: 25,
    });
    const node = await getJson(`${sandbox.url}/v23.0/${PHONE_ID}?fields=messaging_limit_tier`, TOKEN);
    expect(node.body).toMatchObject({ messaging_limit_tier: "TIER_2K" });
  });

  it("posts message_template_components_update like the sample and sends see the edited template", async () => {
    const answer = await control(sandbox.url, "/templates/components", {
      name: "fale_conosco",
      element: "Fale com a gente, {{1}}!",
      buttons: [{ type: "URL", text: "Track", url: "https://example.com/t" }],
    });
    expect(answer.body.webhook_status).toBe(200);
    expectWabaLevel(receiver.received[0], "message_template_components_update");
    const value = valueOf(receiver.received[0]);
    const fixture = FIXTURE_TEMPLATES.find((t) => t.name === "fale_conosco");
    expect(value).toMatchObject({
      message_template_id: Number(fixture?.id),
      message_template_name: "fale_conosco",
      message_template_element: "Fale com a gente, {{1}}!",
      message_template_buttons: [
        {
          message_template_button_type: "URL",
          message_template_button_text: "Track",
          message_template_button_url: "https://example.com/t",
        },
      ],
    });
    // fale_conosco has no header nor footer, like the sample's template.
    expect(shapeOf(receiver.received[0]?.body)).toEqual(shapeOf(TEMPLATE_COMPONENTS));
    // The body now has one variable.
    const to = "5511988887777";
    const send = (components: unknown[]) =>
      sendMessage(sandbox.url, template(to, "fale_conosco", components), { token: TOKEN });
    expect((await send([])).body.error?.code).toBe(132000);
    expect((await send([bodyParams("Maria")])).status).toBe(200);

    await control(sandbox.url, "/templates/components", { name: "fale_conosco", title: "Ajuda", footer: "Loja" });
    expect(valueOf(receiver.received[1])).toMatchObject({
      message_template_element: "Fale com a gente, {{1}}!",
      message_template_title: "Ajuda",
      message_template_footer: "Loja",
    });
  });

  it("posts template_category_update in its impending and completed shapes; only the completed one recategorizes", async () => {
    await control(sandbox.url, "/templates/category", {
      name: "hello_world",
      category: "MARKETING",
      impending: true,
      category_update_timestamp: 1780086400,
    });
    expectWabaLevel(receiver.received[0], "template_category_update");
    expect(Object.keys(valueOf(receiver.received[0]) ?? {}).sort()).toEqual(TEMPLATE_CATEGORY_IMPENDING_KEYS);
    expect(valueOf(receiver.received[0])).toMatchObject({
      message_template_name: "hello_world",
      new_category: "UTILITY",
      correct_category: "MARKETING",
      category_update_timestamp: 1780086400,
    });
    const listing = async () =>
      (await getJson(`${sandbox.url}/v23.0/${WABA}/message_templates?name=hello_world`, TOKEN)).body.data?.[0]
        ?.category;
    expect(await listing()).toBe("UTILITY");

    await control(sandbox.url, "/templates/category", { name: "hello_world", category: "MARKETING" });
    expect(shapeOf(receiver.received[1]?.body)).toEqual(shapeOf(TEMPLATE_CATEGORY_COMPLETED));
    expect(valueOf(receiver.received[1])).toMatchObject({ previous_category: "UTILITY", new_category: "MARKETING" });
    expect(await listing()).toBe("MARKETING");
  });

  it("redelivers a health webhook the gateway refused, with the same bytes and signature", async () => {
    const refusing = await startReceiver((nth) => (nth === 1 ? 503 : 200));
    // The redelivery is due about 500 ms later: the pending list is read before it on a loaded machine.
    const retrying = await start({ webhookUrl: refusing.url, webhookRetryScale: 0.5 });
    try {
      const answer = await control(retrying.url, "/account-update", { event: "ACCOUNT_DELETED" });
      expect(answer.body.webhook_status).toBe(503);
      expect((await pendingOf(retrying.url)).map((p) => p.kind)).toEqual(["account"]);
      const hooks = await refusing.waitFor((all) => all.length === 2);
      expect(hooks[1]?.raw.equals(hooks[0]?.raw ?? Buffer.alloc(0))).toBe(true);
      expect(hooks[1]?.headers["x-hub-signature-256"]).toBe(hooks[0]?.headers["x-hub-signature-256"]);
    } finally {
      await retrying.close();
      await refusing.close();
    }
  });
});
