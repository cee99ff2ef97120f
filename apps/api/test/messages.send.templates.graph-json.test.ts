import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { FIXTURE_TEMPLATES } from "@gw/provider-sandbox";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { sandboxControl } from "./support/sandbox-control.ts";

/*
 * Template sends through POST /public/v1/messages, end to end: for every APPROVED, api_supported template of the
 * sandbox fixture catalogue, the JSON the provider received (GET /_sandbox/sent) must be exactly the Graph API
 * body Meta documents (/work/shared/reference/meta-cloud-api.md, section E):
 *
 *   { messaging_product: "whatsapp", recipient_type: "individual", to: <digits>, type: "template",
 *     template: { name, language: { code }, components?: [...] }, context?: { message_id } }
 *
 *  - header TEXT with a variable:   { type: "header", parameters: [{ type: "text", text }] }                 (E.2)
 *  - header IMAGE/VIDEO/DOCUMENT:   { type: "header", parameters: [{ type: <fmt>, <fmt>: { link, filename? } }] } (E.1)
 *  - body POSITIONAL:               { type: "body", parameters: [{ type: "text", text }, ...] }              (E.2)
 *  - body NAMED:                    { type: "text", parameter_name, text }                                  (E.1/E.2)
 *  - URL button with a variable:    { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text }] } (E.3)
 *  - authentication (OTP):          body [{ type: "text", text: otp }] + url button index "0" with the same code (E.4)
 *  - coupon COPY_CODE:              { type: "button", sub_type: "copy_code", index: <int>, parameters: [{ type: "coupon_code", coupon_code }] } (E.5)
 *  - Pix order details:             { type: "button", sub_type: "order_details", index: 0,
 *                                     parameters: [{ type: "action", action: { order_details: {...} } }] } (E.6/E.7)
 *  - no parameters at all:          `components` omitted (no component carries a parameter).
 *
 * Every expected body below is written by hand from Meta's reference and spec 2.1–2.3, not copied from the
 * gateway's builder. Button `index` follows Meta's own examples for each kind ("0" for url, integers for
 * copy_code and order_details); Meta accepts both forms.
 */

const RECIPIENT = "5511987654321";
const PIX_CODE = "00020101021226700014br.gov.bcb.pix2548pix.example.com/qr/v2/9d36b84f";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface Case {
  title: string;
  name: string;
  language: string;
  /** The PublicSendIn body (spec 2.1), `to` included. */
  send: JsonObject;
  /** The Graph API body Meta documents for this send. */
  expected: JsonObject;
  /** NAMED body parameters are keyed by name: compare them in any order. */
  namedBody?: boolean;
}

function graph(template: JsonObject, extra: JsonObject = {}): JsonObject {
  return {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    to: RECIPIENT,
    type: "template",
    template,
    ...extra,
  };
}

const text = (value: string): JsonObject => ({ type: "text", text: value });
const named = (name: string, value: string): JsonObject => ({ type: "text", parameter_name: name, text: value });
const money = (cents: number): JsonObject => ({ value: cents, offset: 100 });

const CASES: Case[] = [
  {
    title: "pedido_confirmado pt_BR: header text variable + 3 positional body variables, quick replies carry nothing",
    name: "pedido_confirmado",
    language: "pt_BR",
    send: {
      to: RECIPIENT,
      template: "pedido_confirmado",
      language: "pt_BR",
      header_text: "12345",
      variables: ["Maria", "12345", "3"],
    },
    expected: graph({
      name: "pedido_confirmado",
      language: { code: "pt_BR" },
      components: [
        { type: "header", parameters: [text("12345")] },
        { type: "body", parameters: [text("Maria"), text("12345"), text("3")] },
      ],
    }),
  },
  {
    title:
      "pedido_confirmado en_US: same name in another language, as a reply (context.message_id), number given with punctuation",
    name: "pedido_confirmado",
    language: "en_US",
    send: {
      to: "+55 (11) 98765-4321",
      template: "pedido_confirmado",
      language: "en_US",
      header_text: "98765",
      variables: ["Mary", "98765", "5"],
      reply_to_message_id: "wamid.HBgLNTUxMTk4NzY1NDMyMRUCABIYFjNFQjA",
    },
    expected: graph(
      {
        name: "pedido_confirmado",
        language: { code: "en_US" },
        components: [
          { type: "header", parameters: [text("98765")] },
          { type: "body", parameters: [text("Mary"), text("98765"), text("5")] },
        ],
      },
      { context: { message_id: "wamid.HBgLNTUxMTk4NzY1NDMyMRUCABIYFjNFQjA" } },
    ),
  },
  {
    title: "promo_imagem: IMAGE header by public link + 2 body variables",
    name: "promo_imagem",
    language: "pt_BR",
    send: {
      to: RECIPIENT,
      template: "promo_imagem",
      language: "pt_BR",
      header_media: { type: "image", link: "https://cdn.exemplo.com.br/promo.jpg" },
      variables: ["Maria", "20%"],
    },
    expected: graph({
      name: "promo_imagem",
      language: { code: "pt_BR" },
      components: [
        { type: "header", parameters: [{ type: "image", image: { link: "https://cdn.exemplo.com.br/promo.jpg" } }] },
        { type: "body", parameters: [text("Maria"), text("20%")] },
      ],
    }),
  },
  {
    title:
      "boleto_documento: DOCUMENT header (header_media.type defaults to document) with filename + 2 body variables",
    name: "boleto_documento",
    language: "pt_BR",
    send: {
      to: RECIPIENT,
      template: "boleto_documento",
      header_media: { link: "https://cdn.exemplo.com.br/boleto.pdf", filename: "boleto-dezembro.pdf" },
      variables: ["Maria", "10/12/2026"],
    },
    expected: graph({
      name: "boleto_documento",
      language: { code: "pt_BR" },
      components: [
        {
          type: "header",
          parameters: [
            {
              type: "document",
              document: { link: "https://cdn.exemplo.com.br/boleto.pdf", filename: "boleto-dezembro.pdf" },
            },
          ],
        },
        { type: "body", parameters: [text("Maria"), text("10/12/2026")] },
      ],
    }),
  },
  {
    title: "video_boas_vindas: VIDEO header by link + 1 body variable",
    name: "video_boas_vindas",
    language: "pt_BR",
    send: {
      to: RECIPIENT,
      template: "video_boas_vindas",
      language: "pt_BR",
      header_media: { type: "video", link: "https://cdn.exemplo.com.br/boas-vindas.mp4" },
      variables: ["Maria"],
    },
    expected: graph({
      name: "video_boas_vindas",
      language: { code: "pt_BR" },
      components: [
        {
          type: "header",
          parameters: [{ type: "video", video: { link: "https://cdn.exemplo.com.br/boas-vindas.mp4" } }],
        },
        { type: "body", parameters: [text("Maria")] },
      ],
    }),
  },
  {
    title: "lembrete_consulta (NAMED): values in the catalogue's variable_names order carry parameter_name",
    name: "lembrete_consulta",
    language: "pt_BR",
    send: {
      to: RECIPIENT,
      template: "lembrete_consulta",
      language: "pt_BR",
      variables: ["Maria", "10/12/2026", "14:30"],
    },
    expected: graph({
      name: "lembrete_consulta",
      language: { code: "pt_BR" },
      components: [
        { type: "body", parameters: [named("nome", "Maria"), named("data", "10/12/2026"), named("hora", "14:30")] },
      ],
    }),
  },
  {
    title: "lembrete_consulta (NAMED): explicit variable_names in another order bind each value to its name",
    name: "lembrete_consulta",
    language: "pt_BR",
    send: {
      to: RECIPIENT,
      template: "lembrete_consulta",
      language: "pt_BR",
      variables: ["14:30", "Maria", "10/12/2026"],
      variable_names: ["hora", "nome", "data"],
    },
    expected: graph({
      name: "lembrete_consulta",
      language: { code: "pt_BR" },
      components: [
        { type: "body", parameters: [named("hora", "14:30"), named("nome", "Maria"), named("data", "10/12/2026")] },
      ],
    }),
    namedBody: true,
  },
  {
    title: "codigo_verificacao (AUTHENTICATION): the OTP goes in the body and in the url button index 0",
    name: "codigo_verificacao",
    language: "pt_BR",
    send: { to: RECIPIENT, template: "codigo_verificacao", language: "pt_BR", otp_code: "J$FpnYnP" },
    expected: graph({
      name: "codigo_verificacao",
      language: { code: "pt_BR" },
      components: [
        { type: "body", parameters: [text("J$FpnYnP")] },
        { type: "button", sub_type: "url", index: "0", parameters: [text("J$FpnYnP")] },
      ],
    }),
  },
  {
    title: "cupom_desconto: 2 body variables + copy_code button at index 1 with the coupon",
    name: "cupom_desconto",
    language: "pt_BR",
    send: {
      to: RECIPIENT,
      template: "cupom_desconto",
      language: "pt_BR",
      variables: ["PROMO10", "10%"],
      coupon_code: "PROMO10",
      coupon_index: 1,
    },
    expected: graph({
      name: "cupom_desconto",
      language: { code: "pt_BR" },
      components: [
        { type: "body", parameters: [text("PROMO10"), text("10%")] },
        {
          type: "button",
          sub_type: "copy_code",
          index: 1,
          parameters: [{ type: "coupon_code", coupon_code: "PROMO10" }],
        },
      ],
    }),
  },
  {
    title:
      "cupom_desconto with coupon_index omitted (spec default 0): Meta reads buttons by position, so the copy_code component still names index 1",
    name: "cupom_desconto",
    language: "pt_BR",
    send: { to: RECIPIENT, template: "cupom_desconto", variables: ["NATAL15", "15%"], coupon_code: "NATAL15" },
    expected: graph({
      name: "cupom_desconto",
      language: { code: "pt_BR" },
      components: [
        { type: "body", parameters: [text("NATAL15"), text("15%")] },
        {
          type: "button",
          sub_type: "copy_code",
          index: 1,
          parameters: [{ type: "coupon_code", coupon_code: "NATAL15" }],
        },
      ],
    }),
  },
  {
    title: "rastreio_pedido: 1 body variable + url button index 0 with the URL suffix",
    name: "rastreio_pedido",
    language: "pt_BR",
    send: {
      to: RECIPIENT,
      template: "rastreio_pedido",
      language: "pt_BR",
      variables: ["ABC123"],
      button_url_param: "ABC123",
      button_url_index: 0,
    },
    expected: graph({
      name: "rastreio_pedido",
      language: { code: "pt_BR" },
      components: [
        { type: "body", parameters: [text("ABC123")] },
        { type: "button", sub_type: "url", index: "0", parameters: [text("ABC123")] },
      ],
    }),
  },
  {
    title: "fale_conosco: phone and static URL buttons, no variables: no components",
    name: "fale_conosco",
    language: "pt_BR",
    send: { to: RECIPIENT, template: "fale_conosco", language: "pt_BR" },
    expected: graph({ name: "fale_conosco", language: { code: "pt_BR" } }),
  },
  {
    title: "cobranca_pix: static header, 2 body variables + order_details button with the full Pix order",
    name: "cobranca_pix",
    language: "pt_BR",
    send: {
      to: RECIPIENT,
      template: "cobranca_pix",
      language: "pt_BR",
      variables: ["Maria", "12345"],
      pix_order: {
        reference_id: "pedido-12345",
        pix_code: PIX_CODE,
        merchant_name: "Loja Exemplo LTDA",
        key: "loja@exemplo.com.br",
        key_type: "EMAIL",
        items: [
          { name: "Camiseta", amount: 4990, quantity: 2, retailer_id: "SKU-1" },
          { name: "Frete", amount: 1500 },
        ],
        total_amount: 12000,
        tax: 520,
        goods_type: "physical-goods",
      },
    },
    // 2 × 4990 + 1 × 1500 = 11480 (subtotal); + 520 tax = 12000 (total), all in centavos with offset 100.
    expected: graph({
      name: "cobranca_pix",
      language: { code: "pt_BR" },
      components: [
        { type: "body", parameters: [text("Maria"), text("12345")] },
        {
          type: "button",
          sub_type: "order_details",
          index: 0,
          parameters: [
            {
              type: "action",
              action: {
                order_details: {
                  reference_id: "pedido-12345",
                  type: "physical-goods",
                  payment_type: "br",
                  payment_settings: [
                    {
                      type: "pix_dynamic_code",
                      pix_dynamic_code: {
                        code: PIX_CODE,
                        merchant_name: "Loja Exemplo LTDA",
                        key: "loja@exemplo.com.br",
                        key_type: "EMAIL",
                      },
                    },
                  ],
                  currency: "BRL",
                  total_amount: money(12000),
                  order: {
                    status: "pending",
                    tax: money(520),
                    items: [
                      { retailer_id: "SKU-1", name: "Camiseta", amount: money(4990), quantity: 2 },
                      { name: "Frete", amount: money(1500), quantity: 1 },
                    ],
                    subtotal: money(11480),
                  },
                },
              },
            },
          ],
        },
      ],
    }),
  },
  {
    title:
      "cobranca_pix with the spec's defaults: key_type CNPJ, goods_type digital-goods, tax 0, quantity 1, total from the items; language omitted (pt_BR)",
    name: "cobranca_pix",
    language: "pt_BR",
    send: {
      to: RECIPIENT,
      template: "cobranca_pix",
      variables: ["João", "777"],
      pix_order: {
        reference_id: "pedido-777",
        pix_code: PIX_CODE,
        merchant_name: "Loja Exemplo LTDA",
        key: "39580525000189",
        items: [{ name: "Bolo", amount: 5000 }],
      },
    },
    expected: graph({
      name: "cobranca_pix",
      language: { code: "pt_BR" },
      components: [
        { type: "body", parameters: [text("João"), text("777")] },
        {
          type: "button",
          sub_type: "order_details",
          index: 0,
          parameters: [
            {
              type: "action",
              action: {
                order_details: {
                  reference_id: "pedido-777",
                  type: "digital-goods",
                  payment_type: "br",
                  payment_settings: [
                    {
                      type: "pix_dynamic_code",
                      pix_dynamic_code: {
                        code: PIX_CODE,
                        merchant_name: "Loja Exemplo LTDA",
                        key: "39580525000189",
                        key_type: "CNPJ",
                      },
                    },
                  ],
                  currency: "BRL",
                  total_amount: money(5000),
                  order: {
                    status: "pending",
                    tax: money(0),
                    items: [{ name: "Bolo", amount: money(5000), quantity: 1 }],
                    subtotal: money(5000),
                  },
                },
              },
            },
          ],
        },
      ],
    }),
  },
  {
    title: "hello_world en_US: static header and body: no components",
    name: "hello_world",
    language: "en_US",
    send: { to: RECIPIENT, template: "hello_world", language: "en_US" },
    expected: graph({ name: "hello_world", language: { code: "en_US" } }),
  },
];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** NAMED parameters are matched by name, so their order in the array is irrelevant to Meta. */
function sortNamedBody(body: unknown): unknown {
  if (!isObject(body) || !isObject(body.template) || !Array.isArray(body.template.components)) return body;
  const components = body.template.components.map((c: unknown) => {
    if (!isObject(c) || c.type !== "body" || !Array.isArray(c.parameters)) return c;
    const parameters = [...(c.parameters as unknown[])].sort((a, b) => {
      const an = isObject(a) ? String(a.parameter_name) : "";
      const bn = isObject(b) ? String(b.parameter_name) : "";
      return an < bn ? -1 : an > bn ? 1 : 0;
    });
    return { ...c, parameters };
  });
  return { ...body, template: { ...body.template, components } };
}

describe("template sends through POST /public/v1/messages reach the provider as Meta's documented Graph JSON", () => {
  let gateway: TestGateway;
  let account: TestAccount;

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
    account = await createTestAccount(gateway.db);
  });
  afterAll(async () => {
    await gateway.close();
  });

  it("the cases cover exactly the APPROVED, api_supported templates of the fixture catalogue", async () => {
    const res = await request(gateway.app).get("/public/v1/templates?status=ALL").set(account.auth);
    expect(res.status).toBe(200);
    const items = res.body.data.templates as {
      name: string;
      language: string;
      status: string;
      api_supported: boolean;
      sendable: boolean;
      sub_category: string | null;
    }[];
    expect(items).toHaveLength(FIXTURE_TEMPLATES.length);
    // An order-status template is sent by an order's update (orders.lifecycle.e2e), never by POST /messages.
    const fillable = items
      .filter((t) => t.status === "APPROVED" && t.sendable && t.api_supported && t.sub_category !== "ORDER_STATUS")
      .map((t) => `${t.name}/${t.language}`);
    const covered = [...new Set(CASES.map((c) => `${c.name}/${c.language}`))];
    expect(covered.sort()).toEqual(fillable.sort());
    // Not sent by POST /messages: the carousel and the LOCATION header (unfillable) and the order-status template.
    const approved = FIXTURE_TEMPLATES.filter((t) => t.status === "APPROVED").map((t) => `${t.name}/${t.language}`);
    expect(approved.filter((k) => !fillable.includes(k)).sort()).toEqual([
      "endereco_loja/pt_BR",
      "status_do_pedido/pt_BR",
      "vitrine_carrossel/pt_BR",
    ]);
  });

  it.each(CASES.map((c) => [c.title, c] as const))("%s", async (_title, c) => {
    const res = await request(gateway.app).post("/public/v1/messages").set(account.auth).send(c.send);
    expect({ status: res.status, body: res.body as unknown }).toEqual({
      status: 200,
      body: {
        success: true,
        data: {
          message_id: expect.stringMatching(/^wamid\./),
          to: RECIPIENT,
          status: "sent",
          type: "template",
          phone_number_id: account.phoneNumberId,
          client_ref: null,
        },
      },
    });
    const wamid = (res.body as { data: { message_id: string } }).data.message_id;

    const received = (await sandboxControl.sent(gateway)).filter((s) => s.wamid === wamid);
    expect(received).toHaveLength(1);
    const [sent] = received;
    if (!sent) throw new Error("no send recorded");
    expect(sent.phone_number_id).toBe(account.phoneNumberId);
    // The parsed body and the raw bytes the provider got say the same thing.
    expect(JSON.parse(sent.raw)).toStrictEqual(sent.body);
    if (c.namedBody) expect(sortNamedBody(sent.body)).toStrictEqual(sortNamedBody(c.expected));
    else expect(sent.body).toStrictEqual(c.expected);
  });
});
