import { describe, expect, it } from "@jest/globals";
import { ApiError, ERROR_REGISTRY } from "@gw/errors";
import type { ErrorCode } from "@gw/errors";
import { FIXTURE_TEMPLATES } from "@gw/provider-sandbox";
import type { MetaTemplate } from "@gw/meta";
import { buildTemplateSend, findTemplate } from "../src/templates/index.ts";
import type { PixOrderInput, TemplateSendInput } from "../src/templates/index.ts";

const fixtures = FIXTURE_TEMPLATES as unknown as MetaTemplate[];
const TO = "5511987654321";

function fixture(name: string): MetaTemplate {
  const template = findTemplate(fixtures, name, "pt_BR");
  if (!template) throw new Error(`fixture ${name} missing`);
  return template;
}

/** Runs the build and returns the ApiError it threw. */
function refusal(template: MetaTemplate, input: Partial<TemplateSendInput>): ApiError {
  try {
    buildTemplateSend({ to: TO, language: template.language, ...input }, template);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("the send was built, a refusal was expected");
}

function expectRefusal(
  template: MetaTemplate | string,
  input: Partial<TemplateSendInput>,
  code: ErrorCode,
  message: string | RegExp,
): void {
  const error = refusal(typeof template === "string" ? fixture(template) : template, input);
  expect(error.code).toBe(code);
  expect(error.status).toBe(ERROR_REGISTRY[code].status);
  if (typeof message === "string") expect(error.message).toBe(message);
  else expect(error.message).toMatch(message);
  // Specific Portuguese sentences, never the registry's generic one.
  expect(error.message.endsWith(".")).toBe(true);
}

const PIX: PixOrderInput = {
  reference_id: "pedido-1",
  pix_code: "00020101021226700014br.gov.bcb.pix2548pix.example.com",
  merchant_name: "Loja Exemplo",
  key: "39580525000189",
  items: [{ name: "Camiseta", amount: 5000, quantity: 2 }],
};

const PEDIDO = { variables: ["Maria", "12345", "3"], header_text: "12345" };

describe("template send pre-checks: status and format", () => {
  it("PAUSED -> template_paused", () => {
    expectRefusal(
      "aviso_promocao",
      { variables: ["Maria"] },
      "template_paused",
      "O template aviso_promocao (pt_BR) está pausado pelo provedor e não pode ser enviado agora.",
    );
  });

  it.each([
    ["novidades_semana", "PENDING"],
    ["oferta_relampago", "REJECTED"],
    ["pagamento_agendado", "REJECTED"],
    ["campanha_antiga", "DISABLED"],
  ])("%s (%s) -> invalid_template", (name, status) => {
    expectRefusal(
      name,
      { variables: ["a", "b"] },
      "invalid_template",
      `O template ${name} (pt_BR) está com status ${status}; só templates aprovados (APPROVED) podem ser enviados.`,
    );
  });

  it.each([
    [
      "vitrine_carrossel",
      "O template vitrine_carrossel não pode ser enviado pela API pública. O componente CAROUSEL não pode ser preenchido pela API pública.",
    ],
    [
      "endereco_loja",
      "O template endereco_loja não pode ser enviado pela API pública. O cabeçalho do tipo LOCATION não pode ser preenchido pela API pública.",
    ],
  ])("%s -> template_format_unsupported", (name, message) => {
    expectRefusal(name, { variables: ["Maria"] }, "template_format_unsupported", message);
  });
});

describe("template send pre-checks: variables", () => {
  it.each([
    [
      "pedido_confirmado",
      { variables: ["Maria", "12345"], header_text: "12345" },
      "O template pedido_confirmado espera 3 variáveis, mas 2 foram enviadas.",
    ],
    [
      "rastreio_pedido",
      { variables: [], button_url_param: "X" },
      "O template rastreio_pedido espera 1 variável, mas nenhuma foi enviada.",
    ],
    [
      "rastreio_pedido",
      { button_url_param: "X" },
      "O template rastreio_pedido espera 1 variável, mas nenhuma foi enviada.",
    ],
    ["fale_conosco", { variables: ["extra"] }, "O template fale_conosco espera 0 variáveis, mas 1 foi enviada."],
  ])("%s with %j -> template_params_mismatch", (name, input, message) => {
    expectRefusal(name, input, "template_params_mismatch", message);
  });

  it("NAMED: an unknown name, a repeated name, or names and values of different lengths -> template_params_mismatch", () => {
    const values = ["Maria", "10/12/2026", "14:30"];
    expectRefusal(
      "lembrete_consulta",
      { variables: values, variable_names: ["nome", "dia", "hora"] },
      "template_params_mismatch",
      "O template lembrete_consulta não tem a variável {{dia}}; as variáveis são: nome, data, hora.",
    );
    expectRefusal(
      "lembrete_consulta",
      { variables: values, variable_names: ["nome", "nome", "hora"] },
      "template_params_mismatch",
      "A variável {{nome}} aparece mais de uma vez em variable_names.",
    );
    expectRefusal(
      "lembrete_consulta",
      { variables: values, variable_names: ["nome", "data"] },
      "template_params_mismatch",
      "variable_names tem 2 nomes, mas variables tem 3 valores.",
    );
  });

  it("authentication templates take the code in otp_code, not in variables -> template_params_mismatch", () => {
    expectRefusal(
      "codigo_verificacao",
      { variables: ["123456"], otp_code: "123456" },
      "template_params_mismatch",
      "O template codigo_verificacao é de autenticação: informe o código em otp_code e deixe variables vazio.",
    );
  });

  it("a body variable longer than Meta's 1024 characters (send with other components) -> variable_too_long", () => {
    expectRefusal(
      "pedido_confirmado",
      { ...PEDIDO, variables: ["Maria", "x".repeat(1025), "3"] },
      "variable_too_long",
      "A variável 2 do template pedido_confirmado tem 1025 caracteres; o máximo é 1024.",
    );
    // Exactly at the limit is fine.
    expect(() =>
      buildTemplateSend(
        { to: TO, language: "pt_BR", ...PEDIDO, variables: ["Maria", "x".repeat(1024), "3"] },
        fixture("pedido_confirmado"),
      ),
    ).not.toThrow();
  });

  it("a body-only send is limited at 32768 characters per variable -> variable_too_long", () => {
    const bodyOnly: MetaTemplate = {
      name: "relatorio",
      language: "pt_BR",
      status: "APPROVED",
      category: "UTILITY",
      components: [{ type: "BODY", text: "Relatório: {{1}}" }],
    };
    expectRefusal(
      bodyOnly,
      { variables: ["x".repeat(32769)] },
      "variable_too_long",
      "A variável 1 do template relatorio tem 32769 caracteres; o máximo é 32768.",
    );
  });

  it.each([
    [
      "a line break",
      "Maria\nSilva",
      "A variável 1 do template pedido_confirmado contém quebra de linha ou tabulação, que o provedor não aceita.",
    ],
    [
      "a tab",
      "Maria\tSilva",
      "A variável 1 do template pedido_confirmado contém quebra de linha ou tabulação, que o provedor não aceita.",
    ],
    [
      "5 spaces",
      "Maria     Silva",
      "A variável 1 do template pedido_confirmado contém mais de 4 espaços seguidos, o que o provedor não aceita.",
    ],
    ["an empty value", "", "A variável 1 do template pedido_confirmado está vazia."],
    ["only spaces", "   ", "A variável 1 do template pedido_confirmado está vazia."],
  ])("a variable with %s -> variable_bad_format", (_label, value, message) => {
    expectRefusal("pedido_confirmado", { ...PEDIDO, variables: [value, "12345", "3"] }, "variable_bad_format", message);
  });

  it("4 consecutive spaces are still accepted", () => {
    expect(() =>
      buildTemplateSend(
        { to: TO, language: "pt_BR", ...PEDIDO, variables: ["Maria    Silva", "12345", "3"] },
        fixture("pedido_confirmado"),
      ),
    ).not.toThrow();
  });

  it("NAMED variables are named in the messages", () => {
    expectRefusal(
      "lembrete_consulta",
      { variables: ["Maria", "10/12\n2026", "14:30"] },
      "variable_bad_format",
      "A variável {{data}} do template lembrete_consulta contém quebra de linha ou tabulação, que o provedor não aceita.",
    );
  });
});

describe("template send pre-checks: header", () => {
  const IMAGE = { type: "image", link: "https://cdn.exemplo.com.br/promo.jpg" };

  it("media header without header_media -> template_required_header_media", () => {
    expectRefusal(
      "promo_imagem",
      { variables: ["Maria", "20%"] },
      "template_required_header_media",
      "O template promo_imagem tem cabeçalho IMAGE; informe header_media com um link público do arquivo.",
    );
    expectRefusal(
      "boleto_documento",
      { variables: ["Maria", "10/12/2026"], header_media: null },
      "template_required_header_media",
      "O template boleto_documento tem cabeçalho DOCUMENT; informe header_media com um link público do arquivo.",
    );
  });

  it("header_media of another type (the spec default document on an image template) -> template_header_mismatch", () => {
    expectRefusal(
      "promo_imagem",
      { variables: ["Maria", "20%"], header_media: { ...IMAGE, type: "document" } },
      "template_header_mismatch",
      'O cabeçalho do template promo_imagem é IMAGE, mas header_media.type é document; informe type "image".',
    );
    expectRefusal(
      "video_boas_vindas",
      { variables: ["Maria"], header_media: IMAGE },
      "template_header_mismatch",
      'O cabeçalho do template video_boas_vindas é VIDEO, mas header_media.type é image; informe type "video".',
    );
  });

  it("header_media on a template without a media header -> template_header_mismatch", () => {
    expectRefusal(
      "pedido_confirmado",
      { ...PEDIDO, header_media: IMAGE },
      "template_header_mismatch",
      "O template pedido_confirmado é TEXT; remova header_media.",
    );
    expectRefusal(
      "rastreio_pedido",
      { variables: ["A"], button_url_param: "A", header_media: IMAGE },
      "template_header_mismatch",
      "O template rastreio_pedido não tem cabeçalho; remova header_media.",
    );
  });

  it("header text variable without header_text, or header_text on a header without variable -> template_params_mismatch", () => {
    expectRefusal(
      "pedido_confirmado",
      { variables: PEDIDO.variables },
      "template_params_mismatch",
      "O cabeçalho do template pedido_confirmado tem uma variável; informe header_text.",
    );
    expectRefusal(
      "pedido_confirmado",
      { variables: PEDIDO.variables, header_text: "" },
      "template_params_mismatch",
      "O cabeçalho do template pedido_confirmado tem uma variável; informe header_text.",
    );
    expectRefusal(
      "cobranca_pix",
      { variables: ["Maria", "1"], header_text: "Oi", pix_order: PIX },
      "template_params_mismatch",
      "O cabeçalho do template cobranca_pix não tem variável; remova header_text.",
    );
    expectRefusal(
      "promo_imagem",
      { variables: ["Maria", "20%"], header_media: IMAGE, header_text: "Oi" },
      "template_params_mismatch",
      "O cabeçalho do template promo_imagem é de mídia; remova header_text.",
    );
  });

  it("header_text longer than Meta's 60 characters -> variable_too_long; with a line break -> variable_bad_format", () => {
    expectRefusal(
      "pedido_confirmado",
      { ...PEDIDO, header_text: "x".repeat(61) },
      "variable_too_long",
      "O texto do cabeçalho (header_text) do template pedido_confirmado tem 61 caracteres; o máximo é 60.",
    );
    expectRefusal(
      "pedido_confirmado",
      { ...PEDIDO, header_text: "a\nb" },
      "variable_bad_format",
      "O texto do cabeçalho (header_text) do template pedido_confirmado contém quebra de linha ou tabulação, que o provedor não aceita.",
    );
    expect(() =>
      buildTemplateSend(
        { to: TO, language: "pt_BR", ...PEDIDO, header_text: "x".repeat(60) },
        fixture("pedido_confirmado"),
      ),
    ).not.toThrow();
  });
});

describe("template send pre-checks: buttons", () => {
  it("URL button with a variable and no button_url_param -> template_params_mismatch", () => {
    expectRefusal(
      "rastreio_pedido",
      { variables: ["ABC123"] },
      "template_params_mismatch",
      'O botão "Rastrear pedido" do template rastreio_pedido tem uma variável na URL; informe button_url_param.',
    );
  });

  it("button_url_param on a template without URL variable -> template_params_mismatch", () => {
    expectRefusal(
      "fale_conosco",
      { button_url_param: "x" },
      "template_params_mismatch",
      "O template fale_conosco não tem botão de URL com variável; remova button_url_param.",
    );
  });

  it("button_url_index naming another button -> template_params_mismatch", () => {
    expectRefusal(
      "rastreio_pedido",
      { variables: ["A"], button_url_param: "A", button_url_index: 3 },
      "template_params_mismatch",
      "O botão de índice 3 do template rastreio_pedido não é o esperado para button_url_param; use o índice 0.",
    );
    expectRefusal(
      "cupom_desconto",
      { variables: ["A", "B"], coupon_code: "PROMO10", coupon_index: 2 },
      "template_params_mismatch",
      "O botão de índice 2 do template cupom_desconto não é o esperado para coupon_code; use o índice 1.",
    );
  });

  it("a URL suffix with a line break -> variable_bad_format", () => {
    expectRefusal(
      "rastreio_pedido",
      { variables: ["A"], button_url_param: "a\tb" },
      "variable_bad_format",
      "O parâmetro do botão de URL (button_url_param) do template rastreio_pedido contém quebra de linha ou tabulação, que o provedor não aceita.",
    );
  });

  it("COPY_CODE button without coupon_code, or coupon_code without the button -> template_params_mismatch", () => {
    expectRefusal(
      "cupom_desconto",
      { variables: ["A", "B"] },
      "template_params_mismatch",
      "O template cupom_desconto tem um botão de copiar código; informe coupon_code.",
    );
    expectRefusal(
      "rastreio_pedido",
      { variables: ["A"], button_url_param: "A", coupon_code: "PROMO10" },
      "template_params_mismatch",
      "O template rastreio_pedido não tem botão de copiar código; remova coupon_code.",
    );
  });

  it("a coupon over 15 characters -> variable_too_long; with symbols -> variable_bad_format", () => {
    expectRefusal(
      "cupom_desconto",
      { variables: ["A", "B"], coupon_code: "A".repeat(16) },
      "variable_too_long",
      "O cupom (coupon_code) tem 16 caracteres; o máximo é 15.",
    );
    expectRefusal(
      "cupom_desconto",
      { variables: ["A", "B"], coupon_code: "PROMO-10" },
      "variable_bad_format",
      "O cupom (coupon_code) deve ter apenas letras e números.",
    );
  });
});

describe("template send pre-checks: OTP", () => {
  it("authentication template without otp_code -> invalid_otp", () => {
    expectRefusal(
      "codigo_verificacao",
      {},
      "invalid_otp",
      "O template codigo_verificacao é de autenticação e exige o código em otp_code.",
    );
    expectRefusal(
      "codigo_verificacao",
      { otp_code: "" },
      "invalid_otp",
      "O template codigo_verificacao é de autenticação e exige o código em otp_code.",
    );
  });

  it.each([["12 34"], ["código"], ["1234567890123456"], ["12\n34"]])("otp_code %j -> invalid_otp", (otp) => {
    expectRefusal(
      "codigo_verificacao",
      { otp_code: otp },
      "invalid_otp",
      "O código otp_code deve ter de 1 a 15 caracteres, sem espaços nem acentos.",
    );
  });

  it("otp_code on a template that is not for authentication -> invalid_otp", () => {
    expectRefusal(
      "rastreio_pedido",
      { variables: ["A"], button_url_param: "A", otp_code: "123456" },
      "invalid_otp",
      "O template rastreio_pedido não é de autenticação; remova otp_code.",
    );
  });

  it("otp_index naming another button -> template_params_mismatch", () => {
    expectRefusal(
      "codigo_verificacao",
      { otp_code: "123456", otp_index: 4 },
      "template_params_mismatch",
      "O botão de índice 4 do template codigo_verificacao não é o esperado para otp_code; use o índice 0.",
    );
  });
});

describe("template send pre-checks: Pix", () => {
  it("pix_order on a template without ORDER_DETAILS button -> invalid_pix_order", () => {
    expectRefusal(
      "pedido_confirmado",
      { ...PEDIDO, pix_order: PIX },
      "invalid_pix_order",
      "O template pedido_confirmado não tem botão de pedido Pix (ORDER_DETAILS); envie pix_order com um template de detalhes do pedido.",
    );
  });

  it("ORDER_DETAILS template without pix_order -> invalid_pix_order", () => {
    expectRefusal(
      "cobranca_pix",
      { variables: ["Maria", "1"] },
      "invalid_pix_order",
      "O template cobranca_pix é de cobrança Pix e exige pix_order.",
    );
  });

  it("a total_amount that disagrees with items + tax -> invalid_pix_order (never silently replaced)", () => {
    expectRefusal(
      "cobranca_pix",
      { variables: ["Maria", "1"], pix_order: { ...PIX, tax: 100, total_amount: 10000 } },
      "invalid_pix_order",
      "O total do pedido Pix (10000 centavos) não confere com a soma dos itens mais impostos (10100 centavos).",
    );
  });

  it("a zero total -> invalid_pix_order", () => {
    expectRefusal(
      "cobranca_pix",
      { variables: ["Maria", "1"], pix_order: { ...PIX, items: [{ name: "Brinde", amount: 0 }] } },
      "invalid_pix_order",
      "O valor total do pedido Pix deve ser maior que zero.",
    );
  });

  it("no items -> invalid_pix_order", () => {
    expectRefusal(
      "cobranca_pix",
      { variables: ["Maria", "1"], pix_order: { ...PIX, items: [] } },
      "invalid_pix_order",
      "O pedido Pix precisa de ao menos um item.",
    );
  });
});
