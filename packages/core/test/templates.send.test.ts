import { describe, expect, it } from "@jest/globals";
import { FIXTURE_TEMPLATES } from "@gw/provider-sandbox";
import type { GraphOrderStatusComponent, MetaTemplate } from "@gw/meta";
import { buildTemplateSend, findTemplate } from "../src/templates/index.ts";
import type { TemplateSendInput } from "../src/templates/index.ts";

const fixtures = FIXTURE_TEMPLATES as unknown as MetaTemplate[];
const TO = "5511987654321";

function fixture(name: string, language = "pt_BR"): MetaTemplate {
  const template = findTemplate(fixtures, name, language);
  if (!template) throw new Error(`fixture ${name} ${language} missing`);
  return template;
}

function build(name: string, input: Partial<TemplateSendInput> = {}, language = "pt_BR") {
  return buildTemplateSend({ to: TO, language, ...input }, fixture(name, language));
}

/** The envelope of reference E around a `template` object. */
function envelope(template: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { messaging_product: "whatsapp", recipient_type: "individual", to: TO, type: "template", template, ...extra };
}

const PIX_CODE = "00020101021226700014br.gov.bcb.pix2548pix.example.com/qr/v2/cobv/9d36b84f";

describe("template sends: every fixture shape produces the Graph JSON of reference E", () => {
  it("text header variable + positional body, replying to a message", () => {
    const payload = build("pedido_confirmado", {
      variables: ["Maria", "12345", "3"],
      header_text: "12345",
      reply_to_message_id: "wamid.HBgLNTUxMTk4NzY1NDMyMRUCABIYFjNFQjA",
    });
    expect(payload).toEqual(
      envelope(
        {
          name: "pedido_confirmado",
          language: { code: "pt_BR" },
          components: [
            { type: "header", parameters: [{ type: "text", text: "12345" }] },
            {
              type: "body",
              parameters: [
                { type: "text", text: "Maria" },
                { type: "text", text: "12345" },
                { type: "text", text: "3" },
              ],
            },
          ],
        },
        { context: { message_id: "wamid.HBgLNTUxMTk4NzY1NDMyMRUCABIYFjNFQjA" } },
      ),
    );
  });

  it("the same name in another language sends that language's code", () => {
    expect(build("pedido_confirmado", { variables: ["Mary", "12345", "3"], header_text: "12345" }, "en_US")).toEqual(
      envelope({
        name: "pedido_confirmado",
        language: { code: "en_US" },
        components: [
          { type: "header", parameters: [{ type: "text", text: "12345" }] },
          {
            type: "body",
            parameters: [
              { type: "text", text: "Mary" },
              { type: "text", text: "12345" },
              { type: "text", text: "3" },
            ],
          },
        ],
      }),
    );
  });

  it("image header by link (E.1); a filename is dropped for images", () => {
    const expected = envelope({
      name: "promo_imagem",
      language: { code: "pt_BR" },
      components: [
        { type: "header", parameters: [{ type: "image", image: { link: "https://cdn.exemplo.com.br/promo.jpg" } }] },
        {
          type: "body",
          parameters: [
            { type: "text", text: "Maria" },
            { type: "text", text: "20%" },
          ],
        },
      ],
    });
    const variables = ["Maria", "20%"];
    expect(
      build("promo_imagem", {
        variables,
        header_media: { type: "image", link: "https://cdn.exemplo.com.br/promo.jpg" },
      }),
    ).toEqual(expected);
    expect(
      build("promo_imagem", {
        variables,
        header_media: { type: "IMAGE", link: "https://cdn.exemplo.com.br/promo.jpg", filename: "promo.jpg" },
      }),
    ).toEqual(expected);
    // No type at all: the template's format.
    expect(
      build("promo_imagem", { variables, header_media: { link: "https://cdn.exemplo.com.br/promo.jpg" } }),
    ).toEqual(expected);
  });

  it("document header with filename", () => {
    expect(
      build("boleto_documento", {
        variables: ["Maria", "10/12/2026"],
        header_media: {
          type: "document",
          link: "https://cdn.exemplo.com.br/boletos/123.pdf",
          filename: "boleto-123.pdf",
        },
      }),
    ).toEqual(
      envelope({
        name: "boleto_documento",
        language: { code: "pt_BR" },
        components: [
          {
            type: "header",
            parameters: [
              {
                type: "document",
                document: { link: "https://cdn.exemplo.com.br/boletos/123.pdf", filename: "boleto-123.pdf" },
              },
            ],
          },
          {
            type: "body",
            parameters: [
              { type: "text", text: "Maria" },
              { type: "text", text: "10/12/2026" },
            ],
          },
        ],
      }),
    );
  });

  it("video header", () => {
    expect(
      build("video_boas_vindas", {
        variables: ["Maria"],
        header_media: { type: "video", link: "https://cdn.exemplo.com.br/v.mp4" },
      }),
    ).toEqual(
      envelope({
        name: "video_boas_vindas",
        language: { code: "pt_BR" },
        components: [
          { type: "header", parameters: [{ type: "video", video: { link: "https://cdn.exemplo.com.br/v.mp4" } }] },
          { type: "body", parameters: [{ type: "text", text: "Maria" }] },
        ],
      }),
    );
  });

  it("NAMED body (E.2): names from the template, in its order", () => {
    expect(build("lembrete_consulta", { variables: ["Maria", "10/12/2026", "14:30"] })).toEqual(
      envelope({
        name: "lembrete_consulta",
        language: { code: "pt_BR" },
        components: [
          {
            type: "body",
            parameters: [
              { type: "text", parameter_name: "nome", text: "Maria" },
              { type: "text", parameter_name: "data", text: "10/12/2026" },
              { type: "text", parameter_name: "hora", text: "14:30" },
            ],
          },
        ],
      }),
    );
  });

  it("NAMED body: names from variable_names, in the caller's order", () => {
    expect(
      build("lembrete_consulta", {
        variables: ["14:30", "Maria", "10/12/2026"],
        variable_names: ["hora", "nome", "data"],
      }),
    ).toEqual(
      envelope({
        name: "lembrete_consulta",
        language: { code: "pt_BR" },
        components: [
          {
            type: "body",
            parameters: [
              { type: "text", parameter_name: "hora", text: "14:30" },
              { type: "text", parameter_name: "nome", text: "Maria" },
              { type: "text", parameter_name: "data", text: "10/12/2026" },
            ],
          },
        ],
      }),
    );
  });

  it("authentication OTP (E.4): the code in the body and in the URL button", () => {
    expect(build("codigo_verificacao", { otp_code: "J$FpnYnP" })).toEqual(
      envelope({
        name: "codigo_verificacao",
        language: { code: "pt_BR" },
        components: [
          { type: "body", parameters: [{ type: "text", text: "J$FpnYnP" }] },
          { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: "J$FpnYnP" }] },
        ],
      }),
    );
  });

  it("coupon (E.5) at the template's COPY_CODE button, whether coupon_index is defaulted or explicit", () => {
    const expected = envelope({
      name: "cupom_desconto",
      language: { code: "pt_BR" },
      components: [
        {
          type: "body",
          parameters: [
            { type: "text", text: "PROMO10" },
            { type: "text", text: "10%" },
          ],
        },
        {
          type: "button",
          sub_type: "copy_code",
          index: 1,
          parameters: [{ type: "coupon_code", coupon_code: "PROMO10" }],
        },
      ],
    });
    expect(build("cupom_desconto", { variables: ["PROMO10", "10%"], coupon_code: "PROMO10", coupon_index: 0 })).toEqual(
      expected,
    );
    expect(build("cupom_desconto", { variables: ["PROMO10", "10%"], coupon_code: "PROMO10", coupon_index: 1 })).toEqual(
      expected,
    );
    expect(build("cupom_desconto", { variables: ["PROMO10", "10%"], coupon_code: "PROMO10" })).toEqual(expected);
  });

  it("URL button suffix (E.3)", () => {
    expect(
      build("rastreio_pedido", { variables: ["ABC123"], button_url_param: "ABC123", button_url_index: 0 }),
    ).toEqual(
      envelope({
        name: "rastreio_pedido",
        language: { code: "pt_BR" },
        components: [
          { type: "body", parameters: [{ type: "text", text: "ABC123" }] },
          { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: "ABC123" }] },
        ],
      }),
    );
  });

  it("static buttons and no variables: no components at all", () => {
    expect(build("fale_conosco")).toEqual(envelope({ name: "fale_conosco", language: { code: "pt_BR" } }));
    expect(build("hello_world", { variables: [] }, "en_US")).toEqual(
      envelope({ name: "hello_world", language: { code: "en_US" } }),
    );
  });

  it("Pix order details template (E.7): subtotal = Σ amount×quantity, total = subtotal + tax", () => {
    const payload = build("cobranca_pix", {
      variables: ["Maria", "12345"],
      pix_order: {
        reference_id: "pedido-12345",
        pix_code: PIX_CODE,
        merchant_name: "Loja Exemplo LTDA",
        key: "39580525000189",
        key_type: "CNPJ",
        items: [
          { name: "Camiseta", amount: 4990, quantity: 2, retailer_id: "SKU-1" },
          { name: "Frete", amount: 1500, quantity: 1, retailer_id: null },
        ],
        total_amount: null,
        tax: 520,
        goods_type: "physical-goods",
      },
    });
    expect(payload).toEqual(
      envelope({
        name: "cobranca_pix",
        language: { code: "pt_BR" },
        components: [
          {
            type: "body",
            parameters: [
              { type: "text", text: "Maria" },
              { type: "text", text: "12345" },
            ],
          },
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
                          key: "39580525000189",
                          key_type: "CNPJ",
                        },
                      },
                    ],
                    currency: "BRL",
                    total_amount: { value: 12000, offset: 100 },
                    order: {
                      status: "pending",
                      tax: { value: 520, offset: 100 },
                      items: [
                        { retailer_id: "SKU-1", name: "Camiseta", amount: { value: 4990, offset: 100 }, quantity: 2 },
                        { name: "Frete", amount: { value: 1500, offset: 100 }, quantity: 1 },
                      ],
                      subtotal: { value: 11480, offset: 100 },
                    },
                  },
                },
              },
            ],
          },
        ],
      }),
    );
  });

  it("Pix defaults: key_type CNPJ, digital-goods, tax 0, quantity 1; a matching total_amount is accepted", () => {
    const payload = build("cobranca_pix", {
      variables: ["Maria", "12345"],
      pix_order: {
        reference_id: "r1",
        pix_code: PIX_CODE,
        merchant_name: "Loja",
        key: "39580525000189",
        items: [{ name: "Curso", amount: 19900 }],
        total_amount: 19900,
      },
    });
    const button = payload.template.components?.[1];
    expect(button).toEqual({
      type: "button",
      sub_type: "order_details",
      index: 0,
      parameters: [
        {
          type: "action",
          action: {
            order_details: {
              reference_id: "r1",
              type: "digital-goods",
              payment_type: "br",
              payment_settings: [
                {
                  type: "pix_dynamic_code",
                  pix_dynamic_code: { code: PIX_CODE, merchant_name: "Loja", key: "39580525000189", key_type: "CNPJ" },
                },
              ],
              currency: "BRL",
              total_amount: { value: 19900, offset: 100 },
              order: {
                status: "pending",
                tax: { value: 0, offset: 100 },
                items: [{ name: "Curso", amount: { value: 19900, offset: 100 }, quantity: 1 }],
                subtotal: { value: 19900, offset: 100 },
              },
            },
          },
        },
      ],
    });
  });
});

describe("template sends: shapes outside the fixtures", () => {
  const approved = (components: MetaTemplate["components"], extra: Partial<MetaTemplate> = {}): MetaTemplate => ({
    name: "custom",
    language: "pt_BR",
    status: "APPROVED",
    category: "MARKETING",
    components,
    ...extra,
  });

  it("NAMED header and NAMED URL variables carry parameter_name", () => {
    const template = approved(
      [
        { type: "HEADER", format: "TEXT", text: "Oi {{cliente}}" },
        { type: "BODY", text: "Seu código é {{codigo}}." },
        {
          type: "BUTTONS",
          buttons: [
            { type: "QUICK_REPLY", text: "Parar" },
            { type: "URL", text: "Abrir", url: "https://exemplo.com.br/c/{{codigo_url}}" },
          ],
        },
      ],
      { parameter_format: "NAMED" },
    );
    expect(
      buildTemplateSend(
        { to: TO, language: "pt_BR", variables: ["X1"], header_text: "Maria", button_url_param: "abc" },
        template,
      ).template.components,
    ).toEqual([
      { type: "header", parameters: [{ type: "text", parameter_name: "cliente", text: "Maria" }] },
      { type: "body", parameters: [{ type: "text", parameter_name: "codigo", text: "X1" }] },
      {
        type: "button",
        sub_type: "url",
        index: "1",
        parameters: [{ type: "text", parameter_name: "codigo_url", text: "abc" }],
      },
    ]);
  });

  it("a body-only send accepts parameters past 1024 characters (Meta: 32768 when the body is the only component)", () => {
    const template = approved([{ type: "BODY", text: "Relatório: {{1}}" }]);
    const long = "a".repeat(5000);
    expect(buildTemplateSend({ to: TO, language: "pt_BR", variables: [long] }, template).template.components).toEqual([
      { type: "body", parameters: [{ type: "text", text: long }] },
    ]);
  });
});

describe("order-status templates (issue 37): only an order's update sends one, and it sends only one", () => {
  const ORDER_STATUS: GraphOrderStatusComponent = {
    type: "order_status",
    parameters: [{ type: "order_status", order_status: { reference_id: "pedido-1", order: { status: "shipped" } } }],
  };

  it("carries the order's component after the body's parameters", () => {
    const payload = build("status_do_pedido", { variables: ["Maria"], order_status: ORDER_STATUS });
    expect(payload.template.components).toEqual([
      { type: "body", parameters: [{ type: "text", text: "Maria" }] },
      ORDER_STATUS,
    ]);
  });

  it("refuses an order-status template without an order, and an order's status on another template", () => {
    expect(() => build("status_do_pedido", { variables: ["Maria"] })).toThrow(
      expect.objectContaining({
        code: "invalid_template",
        message: expect.stringMatching(/orders\/\{reference_id\}\/status/),
      }),
    );
    expect(() => build("pedido_confirmado", { variables: ["Maria", "1", "3"], order_status: ORDER_STATUS })).toThrow(
      expect.objectContaining({ code: "invalid_template", message: expect.stringMatching(/ORDER_STATUS/) }),
    );
  });
});
