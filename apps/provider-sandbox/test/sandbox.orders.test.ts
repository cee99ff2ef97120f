import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import type { RunningSandbox } from "../src/index.ts";
import {
  signedByMeta,
  bodyParams,
  control,
  PHONE_ID,
  pixOrder,
  sendMessage,
  start,
  startReceiver,
  template,
  type Answer,
} from "./helpers.ts";

// Brazil payments orders (meta-2026 §6, issue 28): the sandbox keeps each reference's order once an order_details
// is accepted, validates order_status like Meta (shape 131008/131009, unknown reference, another customer's,
// transitions 2046/2047, payments not supported 2040, the window 131047), moves the card only on acceptance, shows it
// through GET /_sandbox/orders, and posts the one-click card answer (POST /_sandbox/payment-method).

const TO = "5511977776666";
const OTHER = "5511977775555";
const OTHER_PORTFOLIO_NUMBER = "106540352248888";

interface OrderView {
  portfolio_id: string;
  reference_id: string;
  phone_number_id: string;
  user: { phone: string | null; user_id: string | null };
  card: { order_status: string; payment_status: string };
  payment_timestamp: number | null;
  description: string | null;
  payment_methods: string[];
  total_amount: number;
  history: { wamid: string; type: string; order_status: string; payment_status: string | null; at: string }[];
}

const pixButton = (order: unknown) => ({
  type: "button",
  sub_type: "order_details",
  index: 0,
  parameters: [{ type: "action", action: { order_details: order } }],
});

/** The order-details template (no window needed), as the gateway sends a `pix_order`. */
function pixTemplate(to: string, order: Record<string, unknown> = pixOrder()): Record<string, unknown> {
  return template(to, "cobranca_pix", [bodyParams("Maria", "12345"), pixButton(order)]);
}

function orderStatus(
  address: Record<string, string>,
  parameters: Record<string, unknown>,
  text = "Seu pedido foi atualizado.",
): Record<string, unknown> {
  return {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    ...address,
    type: "interactive",
    interactive: { type: "order_status", body: { text }, action: { name: "review_order", parameters } },
  };
}

const statusTo = (status: string, payment?: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  orderStatus({ to: TO }, { reference_id: "pedido-123", order: { status, ...extra }, ...(payment ? { payment } : {}) });

function expectRefused(answer: Answer, code: number, details: RegExp): void {
  expect(answer.status).toBe(400);
  expect(answer.body.error?.code).toBe(code);
  expect(answer.body.error?.error_data?.details).toMatch(details);
}

describe("orders in the provider sandbox", () => {
  let sandbox: RunningSandbox;
  let base: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await start({
      webhookUrl: receiver.url,
      webhookRetries: false,
      autoStatuses: false,
      numberPortfolios: { [OTHER_PORTFOLIO_NUMBER]: "900000000000002" },
    });
    base = sandbox.url;
  });
  beforeEach(async () => {
    sandbox.sandbox.reset({ config: true });
    receiver.received.length = 0;
    // The customer writes: the window is open for order_status (a free-form interactive message).
    await control(base, "/inbound", { phone_number_id: PHONE_ID, from: TO, type: "text", text: "Paguei" });
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  const orders = async (query = ""): Promise<OrderView[]> =>
    (await control<{ orders: OrderView[] }>(base, `/orders${query}`)).body.orders;
  const card = async (ref = "pedido-123") => (await orders(`?reference_id=${ref}`))[0]?.card;

  it("opens an order per reference when an order_details is accepted: pending card, methods, total, its wamid", async () => {
    const sent = await sendMessage(base, pixTemplate(TO));
    expect(sent.status).toBe(200);
    const listed = await orders(`?phone_number_id=${PHONE_ID}`);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      reference_id: "pedido-123",
      phone_number_id: PHONE_ID,
      user: { phone: TO },
      card: { order_status: "pending", payment_status: "pending" },
      payment_timestamp: null,
      description: null,
      payment_methods: ["pix_dynamic_code"],
      total_amount: 10500,
    });
    expect(listed[0]?.user.user_id).toMatch(/^BR\.\d+$/);
    expect(listed[0]?.history).toEqual([
      expect.objectContaining({
        wamid: sent.body.messages?.[0]?.id,
        type: "order_details",
        order_status: "pending",
        payment_status: "pending",
      }),
    ]);
    // The interactive order_details opens one too.
    const interactive = await sendMessage(base, {
      messaging_product: "whatsapp",
      to: TO,
      type: "interactive",
      interactive: {
        type: "order_details",
        body: { text: "Seu pedido" },
        action: { name: "review_and_pay", parameters: pixOrder({ reference_id: "pedido-124" }) },
      },
    });
    expect(interactive.status).toBe(200);
    expect((await orders()).map((o) => o.reference_id)).toEqual(["pedido-123", "pedido-124"]);
    expect(await orders("?phone_number_id=999")).toEqual([]);
  });

  it("moves the card with each accepted order_status and lists every message in the history", async () => {
    await sendMessage(base, pixTemplate(TO));
    const paid = await sendMessage(
      base,
      statusTo("processing", { status: "captured", timestamp: 1780001000 }, { description: "Separando os itens" }),
    );
    expect(paid.status).toBe(200);
    expect(paid.body.messages).toEqual([{ id: expect.stringMatching(/^wamid\./) }]);
    expect((await orders())[0]).toMatchObject({
      card: { order_status: "processing", payment_status: "captured" },
      payment_timestamp: 1780001000,
      description: "Separando os itens",
    });
    // Without a payment object the card keeps its payment status; an equal rank passes (another partial shipment).
    expect((await sendMessage(base, statusTo("partially-shipped"))).status).toBe(200);
    expect((await sendMessage(base, statusTo("partially-shipped"))).status).toBe(200);
    expect((await sendMessage(base, statusTo("completed"))).status).toBe(200);
    const [order] = await orders();
    expect(order?.card).toEqual({ order_status: "completed", payment_status: "captured" });
    expect(order?.description).toBeNull();
    expect(order?.history.map((h) => [h.type, h.order_status, h.payment_status])).toEqual([
      ["order_details", "pending", "pending"],
      ["order_status", "processing", "captured"],
      ["order_status", "partially-shipped", null],
      ["order_status", "partially-shipped", null],
      ["order_status", "completed", null],
    ]);
  });

  it("refuses transitions like Meta: 2046 backwards or out of completed/canceled, 2047 cancel unless the payment failed", async () => {
    await sendMessage(base, pixTemplate(TO));
    // Cancel with the payment pending (the card's) or captured (in the same message): 2047.
    expectRefused(await sendMessage(base, statusTo("canceled")), 2047, /^order_status: .*payment is pending/);
    expectRefused(
      await sendMessage(base, statusTo("canceled", { status: "captured" })),
      2047,
      /^order_status: .*payment is captured/,
    );
    expect((await sendMessage(base, statusTo("shipped", { status: "captured" }))).status).toBe(200);
    expectRefused(
      await sendMessage(base, statusTo("processing")),
      2046,
      /^order_status: invalid transition from shipped to processing$/,
    );
    expectRefused(await sendMessage(base, statusTo("canceled")), 2047, /captured/);
    expect(await card()).toEqual({ order_status: "shipped", payment_status: "captured" });
    expect((await sendMessage(base, statusTo("completed"))).status).toBe(200);
    for (const next of ["completed", "shipped", "canceled"]) {
      expectRefused(await sendMessage(base, statusTo(next, { status: "failed" })), 2046, /is completed; no status/);
    }
    // An unpaid order is canceled together with its failed payment; nothing follows a cancel.
    await sendMessage(base, pixTemplate(TO, pixOrder({ reference_id: "pedido-9" })));
    const cancel = orderStatus(
      { to: TO },
      { reference_id: "pedido-9", order: { status: "canceled" }, payment: { status: "failed" } },
    );
    expect((await sendMessage(base, cancel)).status).toBe(200);
    expect(await card("pedido-9")).toEqual({ order_status: "canceled", payment_status: "failed" });
    const after = orderStatus({ to: TO }, { reference_id: "pedido-9", order: { status: "processing" } });
    expectRefused(await sendMessage(base, after), 2046, /is canceled/);
    const answer = await sendMessage(base, after);
    expect(answer.body.error?.message).toBe("(#2046) Invalid order status transition");
  });

  it("checks the order_status shape and the order it names (131008/131009 prefixed order_status:)", async () => {
    await sendMessage(base, pixTemplate(TO));
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [
        orderStatus({ to: TO }, { reference_id: "nao-existe", order: { status: "processing" } }),
        131009,
        /^order_status: unknown reference_id nao-existe$/,
      ],
      [
        orderStatus({ to: OTHER }, { reference_id: "pedido-123", order: { status: "processing" } }),
        131009,
        /^order_status: reference_id pedido-123 belongs to another user$/,
      ],
      [statusTo("partially_shipped"), 131009, /^order_status: order\.status must be one of .*partially-shipped/],
      [
        statusTo("processing", { status: "paid" }),
        131009,
        /^order_status: payment\.status must be one of pending, captured, failed/,
      ],
      [
        statusTo("processing", { status: "captured", timestamp: "1780001000" }),
        131009,
        /^order_status: payment\.timestamp/,
      ],
      [
        statusTo("processing", undefined, { description: "x".repeat(121) }),
        131009,
        /^order_status: order\.description .* 120/,
      ],
      [orderStatus({ to: TO }, { reference_id: "pedido-123" }), 131008, /^order_status: order\.status is required$/],
      [
        orderStatus({ to: TO }, { order: { status: "processing" } }),
        131008,
        /^order_status: reference_id is required$/,
      ],
      [
        { ...statusTo("processing"), interactive: { type: "order_status", action: { name: "review_order" } } },
        131008,
        /^order_status: interactive\['body'\]\['text'\] is required$/,
      ],
    ];
    for (const [body, code, details] of cases) expectRefused(await sendMessage(base, body), code, details);
    const wrongAction = statusTo("processing");
    (wrongAction.interactive as { action: { name: string } }).action.name = "review_and_pay";
    expectRefused(await sendMessage(base, wrongAction), 131009, /^order_status: action name must be review_order/);
    // Nothing moved; the window rule applies as to any interactive message.
    expect(await card()).toEqual({ order_status: "pending", payment_status: "pending" });
    expectRefused(
      await sendMessage(base, orderStatus({ to: OTHER }, { reference_id: "x", order: { status: "processing" } })),
      131009,
      /unknown reference_id/,
    );
    await control(base, "/reset", {});
    await sendMessage(base, pixTemplate(TO));
    expect((await sendMessage(base, statusTo("processing"))).body.error?.code).toBe(131047);
    expect(await card()).toEqual({ order_status: "pending", payment_status: "pending" });
  });

  it("keeps a reference once per portfolio: a second order_details with it is 131009, another portfolio may use it", async () => {
    expect((await sendMessage(base, pixTemplate(TO))).status).toBe(200);
    expectRefused(
      await sendMessage(base, pixTemplate(OTHER)),
      131009,
      /^order_details: reference_id pedido-123 already used$/,
    );
    expect((await sendMessage(base, pixTemplate(TO, pixOrder({ reference_id: "pedido-124" })))).status).toBe(200);
    const elsewhere = await sendMessage(base, pixTemplate(OTHER), { phoneId: OTHER_PORTFOLIO_NUMBER });
    expect(elsewhere.status).toBe(200);
    const listed = await orders("?reference_id=pedido-123");
    expect(listed.map((o) => [o.portfolio_id, o.phone_number_id, o.user.phone])).toEqual([
      ["102290129340300", PHONE_ID, TO],
      ["900000000000002", OTHER_PORTFOLIO_NUMBER, OTHER],
    ]);
    // A refused send opens nothing; reset forgets every order.
    await control(base, "/config", { unreachable: [OTHER] });
    expect((await sendMessage(base, pixTemplate(OTHER, pixOrder({ reference_id: "pedido-x" })))).body.error?.code).toBe(
      131026,
    );
    expect(await orders("?reference_id=pedido-x")).toEqual([]);
    await control(base, "/reset", {});
    expect(await orders()).toEqual([]);
  });

  it("answers 2040 for order_details and order_status to a recipient in paymentsUnsupported (phone or BSUID)", async () => {
    await sendMessage(base, pixTemplate(TO));
    const [user] = (await control<{ users: { user_id: string }[] }>(base, `/users?phone=${OTHER}`)).body.users;
    if (!user) throw new Error("the phone user is listed");
    const config = await control<{ paymentsUnsupported: string[] }>(base, "/config", {
      paymentsUnsupported: ["+55 11 97777-6666", user.user_id],
    });
    expect(config.body.paymentsUnsupported).toEqual([TO, user.user_id]);
    expectRefused(await sendMessage(base, statusTo("processing")), 2040, /^order_status: /);
    expectRefused(
      await sendMessage(base, pixTemplate(OTHER, pixOrder({ reference_id: "pedido-2" }))),
      2040,
      /^order_details: /,
    );
    const refused = await sendMessage(base, pixTemplate(TO, pixOrder({ reference_id: "pedido-3" })));
    expect(refused.body.error?.message).toBe("(#2040) Message not supported for this user");
    expect((await orders()).map((o) => [o.reference_id, o.card.order_status])).toEqual([["pedido-123", "pending"]]);
    await control(base, "/config", { paymentsUnsupported: [] });
    expect((await sendMessage(base, statusTo("processing"))).status).toBe(200);
  });

  it("serves a BSUID-only customer: order_details and order_status addressed by recipient", async () => {
    const user = (await control<{ user_id: string }>(base, "/users", { username: "clara.compras", phone: null })).body;
    await control(base, "/inbound", { phone_number_id: PHONE_ID, username: "clara.compras", type: "text", text: "Oi" });
    const details = pixTemplate(TO);
    delete details.to;
    expect((await sendMessage(base, { ...details, recipient: user.user_id })).status).toBe(200);
    expect((await orders())[0]?.user).toEqual({ phone: null, user_id: user.user_id });
    const update = orderStatus(
      { recipient: user.user_id },
      { reference_id: "pedido-123", order: { status: "processing" }, payment: { status: "captured" } },
    );
    expect((await sendMessage(base, update)).status).toBe(200);
    expect(await card()).toEqual({ order_status: "processing", payment_status: "captured" });
    // The phone customer who wrote is someone else.
    expectRefused(await sendMessage(base, statusTo("shipped")), 131009, /belongs to another user/);
  });

  it("takes payment_link and boleto beside Pix, one entry per type, and refuses bad ones with 131009", async () => {
    const settings = (...extra: unknown[]) => [...(pixOrder().payment_settings as unknown[]), ...extra];
    const link = { type: "payment_link", payment_link: { uri: "https://psp.example/pay/0001" } };
    const boleto = { type: "boleto", boleto: { digitable_line: "0".repeat(47) } };
    const ok = await sendMessage(base, pixTemplate(TO, pixOrder({ payment_settings: settings(link, boleto) })));
    expect(ok.status).toBe(200);
    expect((await orders())[0]?.payment_methods).toEqual(["pix_dynamic_code", "payment_link", "boleto"]);
    const withoutPix = pixOrder({ reference_id: "pedido-2", payment_settings: [boleto, link] });
    expect((await sendMessage(base, pixTemplate(TO, withoutPix))).status).toBe(200);
    const bad: [unknown[], RegExp][] = [
      [settings(link, link), /^order_details: payment_settings\[2\]: payment_link is given twice$/],
      [settings({ type: "cartao", cartao: {} }), /^order_details: payment_settings\[1\]\.type must be one of/],
      [settings({ type: "payment_link", payment_link: { uri: "ftp://x" } }), /payment_link\.uri/],
      [settings({ type: "boleto", boleto: { digitable_line: "1".repeat(46) } }), /boleto\.digitable_line/],
      [settings({ type: "offsite_card_pay", offsite_card_pay: { last_four_digits: "42" } }), /last_four_digits/],
      [[], /payment_settings must have at least one entry/],
    ];
    for (const [paymentSettings, details] of bad) {
      const order = pixOrder({ reference_id: "pedido-3", payment_settings: paymentSettings });
      expectRefused(await sendMessage(base, pixTemplate(TO, order)), 131009, details);
    }
    expect(await orders("?reference_id=pedido-3")).toEqual([]);
  });

  it("records the order of a send that went out behind a fault (deliver: true), and not of one that did not", async () => {
    await control(base, "/faults", { mode: "500", route: "messages" });
    expect((await sendMessage(base, pixTemplate(TO))).status).toBe(500);
    expect(await orders()).toEqual([]);
    await control(base, "/faults", { mode: "error", code: 131000, route: "messages", deliver: true });
    expect((await sendMessage(base, pixTemplate(TO))).status).toBe(500);
    expect(await card()).toEqual({ order_status: "pending", payment_status: "pending" });
    // The gateway's error faults for Meta's order codes.
    const fault = await control(base, "/faults", { mode: "error", code: 2046, route: "messages" });
    expect(fault.status).toBe(200);
    const faulted = await sendMessage(base, statusTo("processing"));
    expect(faulted.body.error?.code).toBe(2046);
    expect(await card()).toEqual({ order_status: "pending", payment_status: "pending" });
  });

  it("posts the one-click card answer as Meta's signed payment_method message and leaves the order as it was", async () => {
    await sendMessage(base, pixTemplate(TO));
    const answer = await control<{ id: string; webhook_status: number; payload: unknown }>(base, "/payment-method", {
      phone_number_id: PHONE_ID,
      from: TO,
      reference_id: "pedido-123",
      credential_id: "cred-0001",
      payment_timestamp: 1780001234,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.webhook_status).toBe(200);
    const hook = receiver.received.at(-1);
    expect(hook?.body).toEqual(answer.body.payload);
    expect(signedByMeta(hook)).toBe(true);
    const message = hook?.body.entry[0]?.changes[0]?.value.messages?.[0];
    expect(message).toMatchObject({ from: TO, id: answer.body.id, type: "interactive" });
    expect(message?.interactive).toEqual({
      type: "payment_method",
      payment_method: {
        payment_method: "offsite_card_pay",
        payment_timestamp: 1780001234,
        reference_id: "pedido-123",
        last_four_digits: "4242",
        credential_id: "cred-0001",
      },
    });
    expect(Object.keys(message ?? {})).toEqual(["from", "from_user_id", "id", "timestamp", "type", "interactive"]);
    expect(await card()).toEqual({ order_status: "pending", payment_status: "pending" });

    const unknown = await control(base, "/payment-method", {
      phone_number_id: PHONE_ID,
      username: "ninguem.aqui",
      reference_id: "pedido-123",
    });
    expect(unknown.status).toBe(404);
    const invalid = await control<{ error: { issues: { path: string[] }[] } }>(base, "/payment-method", {
      phone_number_id: PHONE_ID,
      from: TO,
      reference_id: "pedido-123",
      last_four_digits: "42",
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.issues.map((issue) => issue.path.join("."))).toEqual(["last_four_digits"]);
  });
});
