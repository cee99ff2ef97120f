// The Templates page's "variables a send needs" and example body come from core's template shape: every example it
// shows for a template the public API can fill passes the API's own send pre-checks (buildTemplateSend).
import { describe, expect, it } from "@jest/globals";
import { buildTemplateSend, templateShape, toCatalogueItem, type TemplateSendInput } from "@gw/core/templates";
import type { GraphOrderStatusComponent, MetaTemplate } from "@gw/meta";
import { FIXTURE_TEMPLATES } from "@gw/provider-sandbox";
import { exampleSendBody, highlighted, sendNeeds } from "../src/pages/templates-preview.ts";

const catalogue = FIXTURE_TEMPLATES as unknown as MetaTemplate[];
const ORDER: GraphOrderStatusComponent = {
  type: "order_status",
  parameters: [{ type: "order_status", order_status: { reference_id: "pedido-1", order: { status: "shipped" } } }],
};
const byName = (name: string) => catalogue.find((t) => t.name === name && t.language === "pt_BR")!;

describe("template send example", () => {
  it("builds an example every fillable template of the sandbox's catalogue accepts as a send", () => {
    const fillable = catalogue.filter((t) => toCatalogueItem(t).api_supported);
    expect(fillable.length).toBeGreaterThan(8);
    for (const template of fillable) {
      const example = exampleSendBody(template);
      expect(example).not.toBeNull();
      // An order-status template's example is an order update's body: its template, filled as a send would be.
      const order = example?.template as { language: string; variables?: string[] } | string;
      const input: TemplateSendInput =
        typeof order === "object"
          ? { to: "5511999999999", language: order.language, variables: order.variables ?? null, order_status: ORDER }
          : (example as unknown as TemplateSendInput);
      // Status aside (a PENDING template's example is the same once approved), the API would send it.
      const payload = buildTemplateSend(input, { ...template, status: "APPROVED" });
      expect(payload.template.name).toBe(template.name);
    }
  });

  it("fills the example with Meta's own examples of the template", () => {
    expect(exampleSendBody(byName("pedido_confirmado"))).toEqual({
      to: "5511999999999",
      template: "pedido_confirmado",
      language: "pt_BR",
      variables: ["Maria", "12345", "3"],
      header_text: "12345",
    });
    expect(exampleSendBody(byName("lembrete_consulta"))).toMatchObject({
      variables: ["Maria", "10/12/2026", "14:30"],
      variable_names: ["nome", "data", "hora"],
    });
    expect(exampleSendBody(byName("rastreio_pedido"))).toMatchObject({
      button_url_param: "ABC123",
      button_url_index: 0,
    });
    expect(exampleSendBody(byName("cupom_desconto"))).toMatchObject({ coupon_code: "PROMO10", coupon_index: 1 });
    const otp = exampleSendBody(byName("codigo_verificacao"));
    expect(otp).toMatchObject({ otp_code: "123456" });
    expect(otp).not.toHaveProperty("variables");
    expect(exampleSendBody(byName("promo_imagem"))).toMatchObject({ header_media: { type: "image" } });
    expect(exampleSendBody(byName("cobranca_pix"))).toHaveProperty("pix_order");
  });

  it("gives no example for a template the public API cannot fill", () => {
    const carousel = byName("vitrine_carrossel");
    expect(templateShape(carousel).unsupportedReason).not.toBeNull();
    expect(exampleSendBody(carousel)).toBeNull();
  });

  it("names each field the send must fill, and nothing for a template without variables", () => {
    const text = (template: MetaTemplate) =>
      sendNeeds(template)
        .map((need) => need.value.replace(/<[^>]+>/g, "").replace(/\s+/g, " "))
        .join(" | ");
    expect(text(byName("pedido_confirmado"))).toMatch(/variables: 3 valores, na ordem \{\{1\}\}, \{\{2\}\}, \{\{3\}\}/);
    expect(text(byName("pedido_confirmado"))).toMatch(/header_text/);
    expect(text(byName("lembrete_consulta"))).toMatch(/variable_names com os nomes na mesma ordem: nome, data, hora/);
    expect(text(byName("codigo_verificacao"))).toMatch(/otp_code/);
    expect(text(byName("rastreio_pedido"))).toMatch(/button_url_param.*button_url_index 0/);
    expect(text(byName("fale_conosco"))).toBe("Nenhuma variável: basta template e language.");
  });

  it("marks placeholders and escapes the template's own text", () => {
    expect(highlighted("Olá {{nome}} <b>\nfim").value).toBe("Olá <mark>{{nome}}</mark> &lt;b&gt;<br />fim");
  });
});
