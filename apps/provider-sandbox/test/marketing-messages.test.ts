import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import type { RunningSandbox, SentMessage } from "../src/index.ts";
import {
  bodyParams,
  control,
  PHONE_ID,
  sendMessage,
  start,
  startReceiver,
  statusesOf,
  template,
  text,
  type Answer,
  type StatusEntry,
} from "./helpers.ts";

// Issue 37, part 2: the Marketing Messages API (meta-2026 §7, meta-late-2026 §2). POST /{phone-number-id}/
// marketing_messages takes the body of /messages and answers like it, but only MARKETING templates (by the
// catalogue's category); an onboarded WABA's sends are priced `marketing_lite`, a WABA not onboarded falls back to
// Cloud API (`marketing`) or, with `product_policy: STRICT`, is refused (131055, the sandbox's choice). Faults reach
// the edge through their own route; GET /_sandbox/sent says which edge each send took.

const TO = "5511988887777";
const WABA = "102290129340398";
const TOKEN = "mm-token-123";

const coupon = {
  type: "button",
  sub_type: "COPY_CODE",
  index: 1,
  parameters: [{ type: "coupon_code", coupon_code: "PROMO10" }],
};
/** The MARKETING fixture `cupom_desconto`, filled as the gateway fills it. */
const marketing = (extra: Record<string, unknown> = {}, to = TO): Record<string, unknown> => ({
  ...template(to, "cupom_desconto", [bodyParams("PROMO10", "10%"), coupon]),
  ...extra,
});
const utility = template(TO, "pedido_confirmado", [
  { type: "header", parameters: [{ type: "text", text: "12345" }] },
  bodyParams("Maria", "12345", "3"),
]);
const otpButton = { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: "482913" }] };
const authentication = template(TO, "codigo_verificacao", [bodyParams("482913"), otpButton]);

const viaMarketingApi = (base: string, body: unknown, token?: string): Promise<Answer> =>
  sendMessage(base, body, { endpoint: "marketing_messages", ...(token ? { token } : {}) });

function expectMetaError(answer: Answer, code: number, title: string, details: RegExp): void {
  expect(answer.status).toBe(400);
  expect(answer.body.error).toEqual({
    message: `(#${code}) ${title}`,
    type: "OAuthException",
    code,
    error_data: { messaging_product: "whatsapp", details: expect.stringMatching(details) },
    fbtrace_id: expect.stringMatching(/^[A-Za-z0-9_-]{23}$/),
  });
}

describe("POST /{phone-number-id}/marketing_messages", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sandbox: RunningSandbox;
  let base: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await start({
      webhookUrl: receiver.url,
      webhookRetries: false,
      statusDelaysMs: { sent: 0, delivered: 5, read: 10 },
    });
    base = sandbox.url;
  });
  afterEach(async () => {
    await control(base, "/reset", { config: true });
    receiver.received.length = 0;
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  const sent = async (): Promise<SentMessage[]> => (await control<SentMessage[]>(base, "/sent")).body;
  /** The three statuses of a message, once all arrived. */
  const statusesFor = async (wamid: string): Promise<StatusEntry[]> => {
    await receiver.waitFor((all) => statusesOf(all).filter((s) => s.id === wamid).length === 3);
    return statusesOf(receiver.received).filter((s) => s.id === wamid);
  };
  const pricingOf = async (wamid: string) => (await statusesFor(wamid)).find((s) => s.status === "sent")?.pricing;

  it("accepts a MARKETING template with /messages' answer; its statuses are priced marketing_lite", async () => {
    const answer = await viaMarketingApi(base, marketing({ message_activity_sharing: false }));
    expect(answer.status).toBe(200);
    const wamid = answer.body.messages?.[0]?.id ?? "";
    expect(answer.body).toEqual({
      messaging_product: "whatsapp",
      contacts: [{ input: TO, wa_id: TO }],
      messages: [{ id: expect.stringMatching(/^wamid\./), message_status: "accepted" }],
    });

    const statuses = await statusesFor(wamid);
    expect(statuses.map((s) => s.status)).toEqual(["sent", "delivered", "read"]);
    expect(statuses.every((s) => s.recipient_id === TO)).toBe(true);
    expect(statuses[0]?.pricing).toEqual({
      billable: true,
      pricing_model: "PMP",
      type: "regular",
      category: "marketing_lite",
    });
    expect(await sent()).toEqual([
      expect.objectContaining({ wamid, endpoint: "marketing_messages", type: "template", to: TO }),
    ]);
  });

  it("leaves /messages as it was: the same MARKETING template is accepted there and priced marketing", async () => {
    const answer = await sendMessage(base, marketing());
    expect(answer.status).toBe(200);
    const wamid = answer.body.messages?.[0]?.id ?? "";
    expect((await pricingOf(wamid))?.category).toBe("marketing");
    expect((await sent()).map((s) => [s.wamid, s.endpoint])).toEqual([[wamid, "messages"]]);
  });

  it("a WABA not onboarded falls back to Cloud API (priced marketing); with STRICT it is refused with 131055", async () => {
    const config = await control<{ marketingMessagesNotOnboarded: string[] }>(base, "/config", {
      marketingMessagesNotOnboarded: [WABA],
    });
    expect(config.body.marketingMessagesNotOnboarded).toEqual([WABA]);

    const implicit = await viaMarketingApi(base, marketing());
    const explicit = await viaMarketingApi(base, marketing({ product_policy: "CLOUD_API_FALLBACK" }));
    expect([implicit.status, explicit.status]).toEqual([200, 200]);
    expect(implicit.body.messages?.[0]?.message_status).toBe("accepted");
    for (const answer of [implicit, explicit]) {
      expect(await pricingOf(answer.body.messages?.[0]?.id ?? "")).toEqual({
        billable: true,
        pricing_model: "PMP",
        type: "regular",
        category: "marketing",
      });
    }

    const strict = await viaMarketingApi(base, marketing({ product_policy: "STRICT" }));
    expectMetaError(
      strict,
      131055,
      "Method not allowed",
      /^the business is not onboarded to the Marketing Messages API$/,
    );
    // Refused: not recorded, no statuses.
    expect((await sent()).map((s) => s.wamid)).toEqual([
      implicit.body.messages?.[0]?.id,
      explicit.body.messages?.[0]?.id,
    ]);
  });

  it("only the sandbox's own WABA counts; reset {config: true} onboards every WABA again", async () => {
    await control(base, "/config", { marketingMessagesNotOnboarded: ["999999999999999"] });
    const other = await viaMarketingApi(base, marketing({ product_policy: "STRICT" }));
    expect(other.status).toBe(200);
    expect((await pricingOf(other.body.messages?.[0]?.id ?? ""))?.category).toBe("marketing_lite");

    await control(base, "/config", { marketingMessagesNotOnboarded: [WABA] });
    await control(base, "/reset", { config: true });
    expect((await control<{ marketingMessagesNotOnboarded: string[] }>(base, "/config")).body).toMatchObject({
      marketingMessagesNotOnboarded: [],
    });
    expect((await viaMarketingApi(base, marketing({ product_policy: "STRICT" }))).status).toBe(200);
  });

  it("refuses a UTILITY template with 134100 (by the catalogue's category, before its parameters)", async () => {
    const details = /^Only marketing templates can be sent with the Marketing Messages API: pedido_confirmado/;
    const title = "Only marketing templates are supported";
    expectMetaError(await viaMarketingApi(base, utility), 134100, title, details);
    // Parameters that /messages would refuse with 132000: the category is what this edge refuses first.
    expectMetaError(await viaMarketingApi(base, template(TO, "pedido_confirmado")), 134100, title, details);
    expect((await sendMessage(base, template(TO, "pedido_confirmado"))).body.error?.code).toBe(132000);
    // The same template is fine on /messages.
    expect((await sendMessage(base, utility)).status).toBe(200);
    expect((await sent()).map((s) => s.endpoint)).toEqual(["messages"]);
  });

  it("refuses an AUTHENTICATION template with 134100", async () => {
    expectMetaError(
      await viaMarketingApi(base, authentication),
      134100,
      "Only marketing templates are supported",
      /codigo_verificacao \(pt_BR\) is a AUTHENTICATION template\.$/,
    );
    expect((await sendMessage(base, authentication)).status).toBe(200);
  });

  it("refuses anything but a template with Meta's 100 'Message must be a template message.'", async () => {
    const notTemplate = /^Message must be a template message\.$/;
    expectMetaError(await viaMarketingApi(base, text(TO, "Oi")), 100, "Invalid parameter", notTemplate);
    // Meta defaults `type` to text.
    const { type: _type, ...untyped } = marketing();
    expectMetaError(await viaMarketingApi(base, untyped), 100, "Invalid parameter", notTemplate);
    // Mark-as-read belongs to /messages only.
    const read = { messaging_product: "whatsapp", status: "read", message_id: "wamid.X" };
    expectMetaError(await viaMarketingApi(base, read), 100, "Invalid parameter", notTemplate);
    expect(await sent()).toEqual([]);
  });

  it("validates templates with the /messages rules (unknown template 132001, parameter count 132000)", async () => {
    expect((await viaMarketingApi(base, template(TO, "nao_existe"))).body.error?.code).toBe(132001);
    const short = template(TO, "cupom_desconto", [bodyParams("PROMO10"), coupon]);
    expectMetaError(
      await viaMarketingApi(base, short),
      132000,
      "Number of parameters does not match the expected number of params",
      /^body: number of localizable_params \(1\) does not match the expected number of params \(2\)$/,
    );
  });

  it("takes product_policy and message_activity_sharing; other values of them are 131009", async () => {
    expect((await viaMarketingApi(base, marketing({ product_policy: "STRICT" }))).status).toBe(200);
    expect((await viaMarketingApi(base, marketing({ message_activity_sharing: true }))).status).toBe(200);
    expectMetaError(
      await viaMarketingApi(base, marketing({ product_policy: "strict" })),
      131009,
      "Parameter value is not valid",
      /^Param product_policy must be one of \{CLOUD_API_FALLBACK, STRICT\} - got "strict"\.$/,
    );
    expectMetaError(
      await viaMarketingApi(base, marketing({ message_activity_sharing: "false" })),
      131009,
      "Parameter value is not valid",
      /^Param message_activity_sharing must be a boolean - got "false"\.$/,
    );
    expect((await sent()).map((s) => (s.body as { product_policy?: string }).product_policy)).toEqual([
      "STRICT",
      undefined,
    ]);
  });

  it("sends to a BSUID (`recipient`): answered with the BSUID, statuses carry it and marketing_lite", async () => {
    const users = await control<{ users: { user_id: string }[] }>(base, `/users?phone=${TO}`);
    const userId = users.body.users[0]?.user_id ?? "";
    expect(userId).toMatch(/^BR\.\d+$/);
    const { to: _to, ...body } = marketing();
    const answer = await viaMarketingApi(base, { ...body, recipient: userId });
    expect(answer.status).toBe(200);
    expect(answer.body.contacts).toEqual([{ input: userId, user_id: userId }]);
    const wamid = answer.body.messages?.[0]?.id ?? "";
    const statuses = await statusesFor(wamid);
    expect(statuses.every((s) => s.recipient_user_id === userId)).toBe(true);
    expect(statuses[0]?.pricing?.category).toBe("marketing_lite");
    expect(await sent()).toEqual([
      expect.objectContaining({ wamid, endpoint: "marketing_messages", to: null, recipient: userId, user_id: userId }),
    ]);
  });

  it("a contact who stopped marketing messages: accepted, then only `failed` with 131050, as on /messages", async () => {
    await control(base, "/user-preferences", { phone_number_id: PHONE_ID, wa_id: TO, value: "stop", webhook: false });
    const answer = await viaMarketingApi(base, marketing());
    expect(answer.status).toBe(200);
    const wamid = answer.body.messages?.[0]?.id ?? "";
    await receiver.waitFor((all) => statusesOf(all).some((s) => s.id === wamid));
    const statuses = statusesOf(receiver.received).filter((s) => s.id === wamid);
    expect(statuses.map((s) => [s.status, s.errors?.[0]?.code])).toEqual([["failed", 131050]]);
  });

  it("faults on route marketing_messages answer the injected MM codes; /messages is not affected", async () => {
    const titles: [number, string][] = [
      [134101, "Template is still syncing"],
      [134102, "Template not eligible"],
      [131063, "Marketing templates disabled for Cloud API"],
    ];
    for (const [code, title] of titles) {
      const fault = await control(base, "/faults", {
        mode: "error",
        code,
        details: `injected ${code}`,
        route: "marketing_messages",
      });
      expect(fault.status).toBe(200);
      // A /messages send goes through and leaves the fault pending.
      expect((await sendMessage(base, marketing())).status).toBe(200);
      expectMetaError(await viaMarketingApi(base, marketing()), code, title, new RegExp(`^injected ${code}$`));
    }
    expect((await control<{ faults: unknown[] }>(base, "/faults")).body.faults).toEqual([]);
    expect((await viaMarketingApi(base, marketing())).status).toBe(200);
    // Refused by the fault: never sent. The three /messages sends and the last MM one are.
    expect((await sent()).map((s) => s.endpoint)).toEqual(["messages", "messages", "messages", "marketing_messages"]);
  });

  it("faults on route messages do not reach /marketing_messages; route any reaches both", async () => {
    await control(base, "/faults", { mode: "error", code: 131000, route: "messages" });
    expect((await viaMarketingApi(base, marketing())).status).toBe(200);
    expect((await sendMessage(base, marketing())).body.error?.code).toBe(131000);

    await control(base, "/faults", { mode: "500", route: "any", count: 2 });
    expect((await viaMarketingApi(base, marketing())).status).toBe(500);
    expect((await sendMessage(base, marketing())).status).toBe(500);
    const requests = (await control<{ path: string; fault: string | null }[]>(base, "/requests")).body;
    expect(requests.map((r) => [r.path, r.fault])).toEqual([
      [`/v23.0/${PHONE_ID}/marketing_messages`, null],
      [`/v23.0/${PHONE_ID}/messages`, "error"],
      [`/v23.0/${PHONE_ID}/marketing_messages`, "500"],
      [`/v23.0/${PHONE_ID}/messages`, "500"],
    ]);
  });

  it("a fault with deliver: true sends the MM message (listed with its endpoint and fault) behind the error", async () => {
    await control(base, "/faults", { mode: "error", code: 134101, route: "marketing_messages", deliver: true });
    expect((await viaMarketingApi(base, marketing())).body.error?.code).toBe(134101);
    expect(await sent()).toEqual([expect.objectContaining({ endpoint: "marketing_messages", fault: "error" })]);
  });
});

describe("POST /{phone-number-id}/marketing_messages with a token", () => {
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    sandbox = await start({ accessToken: TOKEN, autoStatuses: false });
  });
  afterAll(() => sandbox.close());

  it("needs the same token as /messages (401, code 190 without it)", async () => {
    const missing = await viaMarketingApi(sandbox.url, marketing());
    expect(missing.status).toBe(401);
    expect(missing.body.error?.code).toBe(190);
    expect((await viaMarketingApi(sandbox.url, marketing(), "wrong-token")).status).toBe(401);
    expect((await viaMarketingApi(sandbox.url, marketing(), TOKEN)).status).toBe(200);
  });
});
