import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import type { RunningSandbox } from "../src/index.ts";
import {
  bodyParams,
  control,
  getJson,
  PHONE_ID,
  pixOrder,
  sendMessage,
  start,
  startReceiver,
  statusesOf,
  template,
  type Answer,
} from "./helpers.ts";

// Issue 37, part 1: Meta's order-status template (meta-late-2026 §1). Creating one (UTILITY, BODY and an optional
// FOOTER), and sending it with an `order_status` component: the same order checks as the interactive order_status
// (unknown reference, another customer's, 2046/2047, 2040), no payment, not bound by the 24 h window; each history
// entry of GET /_sandbox/orders says which form carried it.

const TO = "5511977776666";
const OTHER = "5511977775555";
const WABA = "102290129340398";
const HOUR_MS = 3_600_000;
const START_MS = Date.UTC(2026, 11, 7, 12, 0, 0);

interface HistoryView {
  wamid: string;
  type: string;
  order_status: string;
  payment_status: string | null;
  form: string;
  template: string | null;
  at: string;
}

interface OrderView {
  reference_id: string;
  card: { order_status: string; payment_status: string };
  description: string | null;
  history: HistoryView[];
}

interface CreationError {
  message: string;
  type: string;
  code: number;
  is_transient: boolean;
  error_user_title: string;
  error_user_msg: string;
  fbtrace_id: string;
}

/** The order-details template opens the order (no window needed). */
function pixTemplate(to: string, referenceId = "pedido-1"): Record<string, unknown> {
  return template(to, "cobranca_pix", [
    bodyParams("Maria", "12345"),
    {
      type: "button",
      sub_type: "order_details",
      index: 0,
      parameters: [{ type: "action", action: { order_details: pixOrder({ reference_id: referenceId }) } }],
    },
  ]);
}

/** The `order_status` component of the template form, as partners show it. */
function orderStatusComponent(content: Record<string, unknown>): Record<string, unknown> {
  return { type: "order_status", parameters: [{ type: "order_status", order_status: content }] };
}

/** The order-status template send, exactly the wire shape the gateway builds. */
function statusTemplate(
  status: string,
  options: { to?: string; referenceId?: string; description?: string; name?: string } = {},
): Record<string, unknown> {
  const order = { status, ...(options.description !== undefined ? { description: options.description } : {}) };
  return {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    ...template(options.to ?? TO, options.name ?? "status_do_pedido", [
      bodyParams("Maria"),
      orderStatusComponent({ reference_id: options.referenceId ?? "pedido-1", order }),
    ]),
  };
}

/** The interactive form (a free-form message: inside the window only). */
function statusInteractive(status: string, referenceId = "pedido-1"): Record<string, unknown> {
  return {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    to: TO,
    type: "interactive",
    interactive: {
      type: "order_status",
      body: { text: "Seu pedido foi atualizado." },
      action: { name: "review_order", parameters: { reference_id: referenceId, order: { status } } },
    },
  };
}

function expectRefused(answer: Answer, code: number, details: RegExp): void {
  expect(answer.status).toBe(400);
  expect(answer.body.error?.code).toBe(code);
  expect(answer.body.error?.error_data?.details).toMatch(details);
}

describe("order-status templates in the provider sandbox", () => {
  let sandbox: RunningSandbox;
  let base: string;
  let clock = START_MS;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await start({
      webhookUrl: receiver.url,
      webhookRetries: false,
      autoStatuses: false,
      statusDelaysMs: { sent: 0, delivered: 0, read: 0 },
      now: () => clock,
    });
    base = sandbox.url;
  });
  beforeEach(() => {
    sandbox.sandbox.reset({ config: true });
    receiver.received.length = 0;
    clock = START_MS;
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  const orders = async (): Promise<OrderView[]> =>
    (await control<{ orders: OrderView[] }>(base, "/orders")).body.orders;
  const card = async (referenceId = "pedido-1") =>
    (await orders()).find((order) => order.reference_id === referenceId)?.card;
  const createTemplate = async (body: Record<string, unknown>) => {
    const response = await fetch(`${base}/v23.0/${WABA}/message_templates`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      body: (await response.json()) as { id?: string; status?: string; category?: string; error?: CreationError },
    };
  };
  const customerWrites = () =>
    control(base, "/inbound", { phone_number_id: PHONE_ID, from: TO, type: "text", text: "Oi" });

  describe("POST /{waba_id}/message_templates", () => {
    const orderStatusTemplate = (overrides: Record<string, unknown> = {}) => ({
      name: "status_entrega",
      language: "pt_BR",
      category: "UTILITY",
      sub_category: "ORDER_STATUS",
      components: [
        { type: "BODY", text: "Olá {{1}}, seu pedido mudou.", example: { body_text: [["Maria"]] } },
        { type: "FOOTER", text: "Loja" },
      ],
      ...overrides,
    });

    it("creates an ORDER_STATUS template as PENDING, lists its sub_category, and sends it once approved", async () => {
      const created = await createTemplate(orderStatusTemplate());
      expect(created.status).toBe(200);
      expect(created.body).toEqual({ id: expect.stringMatching(/^\d{16}$/), status: "PENDING", category: "UTILITY" });
      // The fields the gateway asks for (packages/meta client) include sub_category.
      const listed = await getJson(
        `${base}/v23.0/${WABA}/message_templates?name=status_entrega&fields=name,status,category,sub_category,components`,
      );
      expect(listed.body.data).toEqual([
        {
          id: created.body.id,
          name: "status_entrega",
          status: "PENDING",
          category: "UTILITY",
          sub_category: "ORDER_STATUS",
          components: orderStatusTemplate().components,
        },
      ]);
      const pendingSend = await sendMessage(base, statusTemplate("processing", { name: "status_entrega" }));
      expect(pendingSend.body.error?.code).toBe(132001);
      // Meta's review, through the control API; then the new template moves an order like the fixture.
      await control(base, "/templates/status", { name: "status_entrega", event: "APPROVED" });
      await sendMessage(base, pixTemplate(TO));
      const sent = await sendMessage(base, statusTemplate("processing", { name: "status_entrega" }));
      expect(sent.status).toBe(200);
      expect(await card()).toEqual({ order_status: "processing", payment_status: "pending" });
      // One name per language: a second creation is refused.
      const again = await createTemplate(orderStatusTemplate());
      expect(again.status).toBe(400);
      expect(again.body.error?.error_user_title).toBe("Content in this language already exists");
    });

    it("takes a BODY alone, and reads the sub_category and component types in any case", async () => {
      const created = await createTemplate(
        orderStatusTemplate({
          sub_category: "order_status",
          components: [{ type: "body", text: "Seu pedido mudou." }],
        }),
      );
      expect(created.status).toBe(200);
      const listed = await getJson(`${base}/v23.0/${WABA}/message_templates?name=status_entrega`);
      expect(listed.body.data?.[0]).toMatchObject({
        sub_category: "ORDER_STATUS",
        parameter_format: "POSITIONAL",
        quality_score: { score: "UNKNOWN" },
        rejected_reason: "NONE",
        components: [{ type: "BODY", text: "Seu pedido mudou." }],
      });
    });

    it("refuses an ORDER_STATUS template that is not UTILITY or has a header or buttons (code 100, Meta's user message)", async () => {
      const cases: [Record<string, unknown>, RegExp][] = [
        [orderStatusTemplate({ category: "MARKETING" }), /category UTILITY; got MARKETING/],
        [orderStatusTemplate({ category: "AUTHENTICATION" }), /category UTILITY; got AUTHENTICATION/],
        [
          orderStatusTemplate({
            components: [
              { type: "BODY", text: "Seu pedido mudou." },
              { type: "BUTTONS", buttons: [{ type: "QUICK_REPLY", text: "Ok" }] },
            ],
          }),
          /BODY and an optional FOOTER only; got BUTTONS/,
        ],
        [
          orderStatusTemplate({
            components: [
              { type: "HEADER", format: "TEXT", text: "Pedido" },
              { type: "BODY", text: "Seu pedido mudou." },
            ],
          }),
          /BODY and an optional FOOTER only; got HEADER/,
        ],
        [orderStatusTemplate({ components: [{ type: "FOOTER", text: "Loja" }] }), /needs a BODY component/],
      ];
      for (const [body, userMessage] of cases) {
        const refused = await createTemplate(body);
        expect(refused.status).toBe(400);
        expect(refused.body.error).toEqual({
          message: "Invalid parameter",
          type: "OAuthException",
          code: 100,
          is_transient: false,
          error_user_title: expect.any(String),
          error_user_msg: expect.stringMatching(userMessage),
          fbtrace_id: expect.any(String),
        });
      }
      // Nothing refused reached the catalogue.
      const listed = await getJson(`${base}/v23.0/${WABA}/message_templates?name=status_entrega`);
      expect(listed.body.data).toEqual([]);
    });

    it("applies the ORDER_STATUS rules only to that sub_category: a MARKETING template with buttons is created", async () => {
      const created = await createTemplate({
        name: "promo_botoes",
        language: "pt_BR",
        category: "MARKETING",
        sub_category: "CUSTOM",
        components: [
          { type: "HEADER", format: "TEXT", text: "Oferta" },
          { type: "BODY", text: "Aproveite!" },
          { type: "BUTTONS", buttons: [{ type: "QUICK_REPLY", text: "Quero" }] },
        ],
      });
      expect(created.status).toBe(200);
      expect(created.body.category).toBe("MARKETING");
      const bad = await createTemplate({
        name: "Nome Invalido",
        language: "pt_BR",
        category: "UTILITY",
        components: [],
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error?.error_user_title).toBe("Invalid template name");
    });
  });

  describe("the order_status component of a template send", () => {
    it("moves the order outside the 24 h window, where the interactive form is refused (131047)", async () => {
      await customerWrites();
      expect((await sendMessage(base, pixTemplate(TO))).status).toBe(200);
      // Inside the window both forms pass.
      expect((await sendMessage(base, statusInteractive("processing"))).status).toBe(200);
      clock += 25 * HOUR_MS;
      const interactive = await sendMessage(base, statusInteractive("shipped"));
      expect(interactive.body.error?.code).toBe(131047);
      expect(await card()).toEqual({ order_status: "processing", payment_status: "pending" });
      const shipped = await sendMessage(base, statusTemplate("shipped", { description: "Enviado pelos Correios" }));
      expect(shipped.status).toBe(200);
      // A template's answer: Meta's pacing field.
      expect(shipped.body.messages).toEqual([{ id: expect.stringMatching(/^wamid\./), message_status: "accepted" }]);
      const [order] = await orders();
      // The payment is untouched: the template form carries none.
      expect(order?.card).toEqual({ order_status: "shipped", payment_status: "pending" });
      expect(order?.description).toBe("Enviado pelos Correios");
      const sent = (await control<{ wamid: string; type: string }[]>(base, "/sent")).body;
      expect(sent.find((s) => s.wamid === shipped.body.messages?.[0]?.id)?.type).toBe("template");
    });

    it("is taken with no window at all (the customer never wrote), and its statuses are a template's", async () => {
      await control(base, "/config", { autoStatuses: true });
      expect((await sendMessage(base, pixTemplate(TO))).status).toBe(200);
      const processing = await sendMessage(base, statusTemplate("processing"));
      expect(processing.status).toBe(200);
      expect(await card()).toEqual({ order_status: "processing", payment_status: "pending" });
      const wamid = processing.body.messages?.[0]?.id ?? "";
      await receiver.waitFor((hooks) => statusesOf(hooks).some((s) => s.id === wamid && s.status === "read"));
      const statuses = statusesOf(receiver.received).filter((s) => s.id === wamid);
      expect(statuses.map((s) => s.status)).toEqual(["sent", "delivered", "read"]);
      // A utility template outside the window: billed as a regular template (the interactive form would be service).
      expect(statuses[0]?.pricing).toEqual({
        billable: true,
        pricing_model: "PMP",
        type: "regular",
        category: "utility",
      });
      expectRefused(await sendMessage(base, statusInteractive("shipped")), 131047, /24 hours/);
    });

    it("runs the interactive form's order checks: unknown or another customer's reference 131009, 2046, 2047, 2040", async () => {
      await sendMessage(base, pixTemplate(TO));
      expectRefused(
        await sendMessage(base, statusTemplate("processing", { referenceId: "nao-existe" })),
        131009,
        /^order_status: unknown reference_id nao-existe$/,
      );
      expectRefused(
        await sendMessage(base, statusTemplate("processing", { to: OTHER })),
        131009,
        /^order_status: reference_id pedido-1 belongs to another user$/,
      );
      // Cancel while the payment is pending: 2047 (the template form cannot say the payment failed).
      expectRefused(await sendMessage(base, statusTemplate("canceled")), 2047, /payment is pending/);
      expect((await sendMessage(base, statusTemplate("shipped"))).status).toBe(200);
      expectRefused(
        await sendMessage(base, statusTemplate("processing")),
        2046,
        /^order_status: invalid transition from shipped to processing$/,
      );
      expect((await sendMessage(base, statusTemplate("completed"))).status).toBe(200);
      for (const next of ["completed", "shipped", "canceled"])
        expectRefused(await sendMessage(base, statusTemplate(next)), 2046, /is completed; no status may follow/);
      expect(await card()).toEqual({ order_status: "completed", payment_status: "pending" });
      // A customer whose WhatsApp takes no order messages.
      await sendMessage(base, pixTemplate(TO, "pedido-2"));
      await control(base, "/config", { paymentsUnsupported: [TO] });
      expectRefused(
        await sendMessage(base, statusTemplate("processing", { referenceId: "pedido-2" })),
        2040,
        /^order_status: /,
      );
      expect(await card("pedido-2")).toEqual({ order_status: "pending", payment_status: "pending" });
    });

    it("checks the component like Meta: 131008 without it, 131009 for a payment, a bad value or another template", async () => {
      await sendMessage(base, pixTemplate(TO));
      const withContent = (content: Record<string, unknown>) =>
        template(TO, "status_do_pedido", [bodyParams("Maria"), orderStatusComponent(content)]);
      const cases: [Record<string, unknown>, number, RegExp][] = [
        [
          template(TO, "status_do_pedido", [bodyParams("Maria")]),
          131008,
          /^order_status: the order-status template status_do_pedido requires a component of type order_status$/,
        ],
        [
          withContent({ reference_id: "pedido-1", order: { status: "processing" }, payment: { status: "captured" } }),
          131009,
          /^order_status: payment is not allowed in the template form/,
        ],
        [
          withContent({ reference_id: "pedido-1", order: { status: "partially_shipped" } }),
          131009,
          /^order_status: order\.status must be one of .*partially-shipped/,
        ],
        [
          withContent({ reference_id: "pedido-1", order: { status: "shipped", description: "x".repeat(121) } }),
          131009,
          /^order_status: order\.description .* 120/,
        ],
        [
          withContent({ reference_id: "pedido-1", order: { status: "shipped", items: [] } }),
          131009,
          /^order_status: unexpected member\(s\) items in order$/,
        ],
        [withContent({ order: { status: "shipped" } }), 131008, /^order_status: reference_id is required$/],
        [withContent({ reference_id: "", order: { status: "shipped" } }), 131009, /reference_id must be a non-empty/],
        [withContent({ reference_id: "pedido-1" }), 131008, /^order_status: order\.status is required$/],
        [
          template(TO, "status_do_pedido", [
            bodyParams("Maria"),
            { type: "order_status", parameters: [{ type: "text", text: "shipped" }] },
          ]),
          131009,
          /^order_status: the parameter type must be order_status/,
        ],
        [
          template(TO, "video_boas_vindas", [
            { type: "header", parameters: [{ type: "video", video: { link: "https://cdn.exemplo.com.br/v.mp4" } }] },
            bodyParams("Maria"),
            orderStatusComponent({ reference_id: "pedido-1", order: { status: "processing" } }),
          ]),
          131009,
          /^order_status: the template video_boas_vindas is not an order-status template/,
        ],
        [
          template(TO, "pedido_confirmado", [
            { type: "header", parameters: [{ type: "text", text: "12345" }] },
            bodyParams("Maria", "12345", "3"),
            orderStatusComponent({ reference_id: "pedido-1", order: { status: "processing" } }),
          ]),
          131009,
          /^order_status: the template pedido_confirmado is not an order-status template/,
        ],
        // The body is checked as for any template.
        [
          template(TO, "status_do_pedido", [
            orderStatusComponent({ reference_id: "pedido-1", order: { status: "processing" } }),
          ]),
          132000,
          /^body: number of localizable_params \(0\) does not match the expected number of params \(1\)$/,
        ],
      ];
      for (const [body, code, details] of cases) expectRefused(await sendMessage(base, body), code, details);
      // Nothing moved, nothing was sent.
      expect(await card()).toEqual({ order_status: "pending", payment_status: "pending" });
      expect((await control<unknown[]>(base, "/sent")).body).toHaveLength(1);
    });

    it("records in each history entry which form carried it (and the template's name)", async () => {
      await customerWrites();
      const details = await sendMessage(base, pixTemplate(TO));
      const interactiveDetails = await sendMessage(base, {
        messaging_product: "whatsapp",
        to: TO,
        type: "interactive",
        interactive: {
          type: "order_details",
          body: { text: "Seu pedido" },
          action: { name: "review_and_pay", parameters: pixOrder({ reference_id: "pedido-2" }) },
        },
      });
      const viaInteractive = await sendMessage(base, statusInteractive("processing"));
      const viaTemplate = await sendMessage(base, statusTemplate("shipped"));
      const history = (await orders()).map((order) => [
        order.reference_id,
        order.history.map(({ wamid, type, order_status, payment_status, form, template: name }) => ({
          wamid,
          type,
          order_status,
          payment_status,
          form,
          template: name,
        })),
      ]);
      const wamid = (answer: Answer) => answer.body.messages?.[0]?.id;
      expect(history).toEqual([
        [
          "pedido-1",
          [
            {
              wamid: wamid(details),
              type: "order_details",
              order_status: "pending",
              payment_status: "pending",
              form: "template",
              template: "cobranca_pix",
            },
            {
              wamid: wamid(viaInteractive),
              type: "order_status",
              order_status: "processing",
              payment_status: null,
              form: "interactive",
              template: null,
            },
            {
              wamid: wamid(viaTemplate),
              type: "order_status",
              order_status: "shipped",
              payment_status: null,
              form: "template",
              template: "status_do_pedido",
            },
          ],
        ],
        [
          "pedido-2",
          [
            {
              wamid: wamid(interactiveDetails),
              type: "order_details",
              order_status: "pending",
              payment_status: "pending",
              form: "interactive",
              template: null,
            },
          ],
        ],
      ]);
    });
  });
});
