import { describe, expect, it } from "@jest/globals";
import { FIXTURE_TEMPLATES } from "@gw/provider-sandbox";
import type { MetaTemplate } from "@gw/meta";
import { findTemplate, toCatalogueItem } from "../src/templates/index.ts";
import { TemplateCatalogueOut, TemplateItemOut } from "@gw/contracts";

const DATE = 1_763_000_000;
const GREEN = { score: "GREEN", date: DATE, reasons: [] };
const UNKNOWN = { score: "UNKNOWN", date: DATE, reasons: [] };
const RED = { score: "RED", date: DATE, reasons: [] };

type Button = {
  index: number;
  type: string;
  text: string | null;
  url?: string;
  phone_number?: string;
  needs?: "url" | "coupon" | "otp";
};
const button = ({ index, type, text, url, phone_number, needs }: Button) => ({
  index,
  type,
  text,
  url: url ?? null,
  phone_number: phone_number ?? null,
  needs_url_param: needs === "url",
  needs_coupon: needs === "coupon",
  needs_otp: needs === "otp",
});
const quickReply = (index: number, text: string) => button({ index, type: "QUICK_REPLY", text });
type Header = { format: string; text: string | null; needs_text: boolean; needs_media: boolean };
const textHeader = (text: string, needsText: boolean): Header => ({
  format: "TEXT",
  text,
  needs_text: needsText,
  needs_media: false,
});
const mediaHeader = (format: string): Header => ({ format, text: null, needs_text: false, needs_media: true });
const footer = (text: string | null, minutes: number | null = null) => ({ text, code_expiration_minutes: minutes });

interface Expected {
  name: string;
  language?: string;
  status?: string;
  category: string;
  /** Meta's sub-category, as the fixture lists it (null: none given). */
  sub_category?: string;
  quality_score?: typeof GREEN;
  rejected_reason?: string | null;
  message_send_ttl_seconds?: number | null;
  api_unsupported_reason?: string | null;
  header?: Header | null;
  parameter_format?: "NAMED" | "POSITIONAL";
  body: { text: string; variables_count: number; variable_names: string[] };
  footer?: ReturnType<typeof footer> | null;
  buttons?: ReturnType<typeof button>[];
}

/** The reviewed catalogue item of each fixture, keyed by id. Compatibility copies are filled from the same literal. */
const EXPECTED: Record<string, Expected> = {
  "1000000000000001": {
    name: "pedido_confirmado",
    category: "UTILITY",
    header: textHeader("Pedido {{1}}", true),
    body: {
      text: "Olá {{1}}, seu pedido {{2}} foi confirmado e chega em {{3}} dias úteis.",
      variables_count: 3,
      variable_names: [],
    },
    footer: footer("Loja Exemplo"),
    buttons: [quickReply(0, "Falar com atendente"), quickReply(1, "Cancelar pedido")],
  },
  "1000000000000002": {
    name: "pedido_confirmado",
    language: "en_US",
    category: "UTILITY",
    header: textHeader("Order {{1}}", true),
    body: {
      text: "Hi {{1}}, your order {{2}} is confirmed and arrives in {{3}} business days.",
      variables_count: 3,
      variable_names: [],
    },
    footer: footer("Example Store"),
    buttons: [quickReply(0, "Talk to an agent"), quickReply(1, "Cancel order")],
  },
  "1000000000000003": {
    name: "promo_imagem",
    category: "MARKETING",
    sub_category: "CUSTOM",
    header: mediaHeader("IMAGE"),
    body: { text: "{{1}}, aproveite {{2}} de desconto em toda a loja!", variables_count: 2, variable_names: [] },
    footer: footer("Responda SAIR para não receber ofertas"),
    buttons: [quickReply(0, "Não tenho interesse")],
  },
  "1000000000000004": {
    name: "boleto_documento",
    category: "UTILITY",
    header: mediaHeader("DOCUMENT"),
    body: { text: "Olá {{1}}, segue o boleto com vencimento em {{2}}.", variables_count: 2, variable_names: [] },
  },
  "1000000000000005": {
    name: "video_boas_vindas",
    category: "MARKETING",
    sub_category: "CUSTOM",
    quality_score: UNKNOWN,
    header: mediaHeader("VIDEO"),
    body: { text: "Bem-vindo, {{1}}! Veja como aproveitar sua conta.", variables_count: 1, variable_names: [] },
  },
  "1000000000000006": {
    name: "lembrete_consulta",
    category: "UTILITY",
    parameter_format: "NAMED",
    body: {
      text: "Olá {{nome}}, sua consulta é em {{data}} às {{hora}}.",
      variables_count: 3,
      variable_names: ["nome", "data", "hora"],
    },
    footer: footer("Clínica Exemplo"),
    buttons: [quickReply(0, "Confirmar"), quickReply(1, "Remarcar")],
  },
  "1000000000000007": {
    // Authentication: the code goes in otp_code, so `variables` must carry nothing.
    name: "codigo_verificacao",
    category: "AUTHENTICATION",
    message_send_ttl_seconds: 600,
    body: {
      text: "*{{1}}* é seu código de verificação. Para sua segurança, não compartilhe este código.",
      variables_count: 0,
      variable_names: [],
    },
    footer: footer("Este código expira em 10 minutos.", 10),
    buttons: [
      button({
        index: 0,
        type: "URL",
        text: "Copiar código",
        url: "https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code_expiration_minutes=10&code=otp{{1}}",
        needs: "otp",
      }),
    ],
  },
  "1000000000000008": {
    name: "cupom_desconto",
    category: "MARKETING",
    sub_category: "CUSTOM",
    body: { text: "Use o cupom {{1}} e ganhe {{2}} de desconto até domingo.", variables_count: 2, variable_names: [] },
    buttons: [
      quickReply(0, "Não tenho interesse"),
      button({ index: 1, type: "COPY_CODE", text: "Copiar código da oferta", needs: "coupon" }),
    ],
  },
  "1000000000000009": {
    name: "rastreio_pedido",
    category: "UTILITY",
    body: { text: "Seu pedido {{1}} foi enviado.", variables_count: 1, variable_names: [] },
    buttons: [
      button({
        index: 0,
        type: "URL",
        text: "Rastrear pedido",
        url: "https://rastreio.exemplo.com.br/p/{{1}}",
        needs: "url",
      }),
    ],
  },
  "1000000000000010": {
    name: "fale_conosco",
    category: "UTILITY",
    body: { text: "Precisa de ajuda? Fale com a nossa equipe.", variables_count: 0, variable_names: [] },
    buttons: [
      button({ index: 0, type: "PHONE_NUMBER", text: "Ligar", phone_number: "+551130000000" }),
      button({ index: 1, type: "URL", text: "Visitar site", url: "https://www.exemplo.com.br/" }),
    ],
  },
  "1000000000000011": {
    name: "cobranca_pix",
    category: "UTILITY",
    sub_category: "ORDER_DETAILS",
    header: textHeader("Pagamento pendente", false),
    body: { text: "Olá {{1}}, seu pedido {{2}} aguarda o pagamento via Pix.", variables_count: 2, variable_names: [] },
    footer: footer("Loja Exemplo"),
    buttons: [button({ index: 0, type: "ORDER_DETAILS", text: "Copiar código Pix" })],
  },
  "1000000000000012": {
    name: "vitrine_carrossel",
    category: "MARKETING",
    sub_category: "CUSTOM",
    api_unsupported_reason: "O componente CAROUSEL não pode ser preenchido pela API pública.",
    body: { text: "Confira as novidades da semana, {{1}}!", variables_count: 1, variable_names: [] },
  },
  "1000000000000013": {
    name: "endereco_loja",
    category: "UTILITY",
    api_unsupported_reason: "O cabeçalho do tipo LOCATION não pode ser preenchido pela API pública.",
    header: { format: "LOCATION", text: null, needs_text: false, needs_media: false },
    body: { text: "{{1}}, sua retirada está disponível nesta loja.", variables_count: 1, variable_names: [] },
  },
  "1000000000000014": {
    name: "novidades_semana",
    status: "PENDING",
    category: "MARKETING",
    sub_category: "CUSTOM",
    quality_score: UNKNOWN,
    body: { text: "Olá {{1}}, chegaram novidades!", variables_count: 1, variable_names: [] },
  },
  "1000000000000015": {
    name: "oferta_relampago",
    status: "REJECTED",
    category: "MARKETING",
    quality_score: UNKNOWN,
    rejected_reason: "INVALID_FORMAT",
    body: { text: "{{1}} GANHE JÁ {{2}}!!!", variables_count: 2, variable_names: [] },
  },
  "1000000000000016": {
    name: "pagamento_agendado",
    status: "REJECTED",
    category: "UTILITY",
    quality_score: UNKNOWN,
    rejected_reason: "INCORRECT_CATEGORY",
    body: { text: "Seu pagamento de {{1}} está agendado para {{2}}.", variables_count: 2, variable_names: [] },
  },
  "1000000000000017": {
    name: "aviso_promocao",
    status: "PAUSED",
    category: "MARKETING",
    sub_category: "CUSTOM",
    quality_score: RED,
    body: { text: "{{1}}, a promoção termina hoje!", variables_count: 1, variable_names: [] },
  },
  "1000000000000018": {
    name: "campanha_antiga",
    status: "DISABLED",
    category: "MARKETING",
    quality_score: RED,
    body: { text: "Últimos dias da campanha, {{1}}!", variables_count: 1, variable_names: [] },
  },
  "1000000000000019": {
    name: "hello_world",
    language: "en_US",
    category: "UTILITY",
    header: textHeader("Hello World", false),
    body: {
      text: "Welcome and congratulations!! This message demonstrates your ability to send a WhatsApp message notification from the Cloud API, hosted by Meta. Thank you for taking the time to test with us.",
      variables_count: 0,
      variable_names: [],
    },
    footer: footer("WhatsApp Business Platform sample message"),
  },
  "1000000000000020": {
    name: "status_do_pedido",
    category: "UTILITY",
    sub_category: "ORDER_STATUS",
    body: { text: "Olá {{1}}, há novidades sobre o seu pedido.", variables_count: 1, variable_names: [] },
    footer: footer("Loja de teste"),
  },
};

function expectedItem(id: string, e: Expected, components: unknown) {
  const status = e.status ?? "APPROVED";
  const unsupported = e.api_unsupported_reason ?? null;
  const header = e.header ?? null;
  return {
    id,
    name: e.name,
    language: e.language ?? "pt_BR",
    status,
    category: e.category,
    sub_category: e.sub_category ?? null,
    quality_score: e.quality_score ?? GREEN,
    rejected_reason: e.rejected_reason ?? null,
    message_send_ttl_seconds: e.message_send_ttl_seconds ?? null,
    sendable: status === "APPROVED",
    api_supported: unsupported === null,
    api_unsupported_reason: unsupported,
    header,
    parameter_format: e.parameter_format ?? "POSITIONAL",
    body: e.body,
    footer: e.footer ?? null,
    buttons: e.buttons ?? [],
    body_text: e.body.text,
    variables_count: e.body.variables_count,
    variable_names: e.body.variable_names,
    header_format: header?.format ?? null,
    components,
  };
}

const fixtures = FIXTURE_TEMPLATES as unknown as MetaTemplate[];

describe("template catalogue items (spec 2.5)", () => {
  it("has a reviewed expectation for every sandbox fixture", () => {
    expect(fixtures.map((t) => t.id).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(fixtures.map((t) => [`${t.name} ${t.language} ${t.status}`, t] as const))("%s", (_label, template) => {
    const id = template.id ?? "";
    const expected = EXPECTED[id];
    if (!expected) throw new Error(`no expectation for ${id}`);
    const item = toCatalogueItem(template);
    expect(item).toEqual(expectedItem(id, expected, template.components));
    // Every field always present, and the item fits the published response schema.
    expect(Object.keys(item).sort()).toEqual(Object.keys(TemplateItemOut.shape).sort());
    expect(TemplateItemOut.parse(item)).toEqual(item);
  });

  it("the whole catalogue fits TemplateCatalogueOut", () => {
    const body = { success: true, data: { templates: fixtures.map(toCatalogueItem) } };
    expect(TemplateCatalogueOut.parse(body)).toEqual(body);
  });
});

describe("template catalogue items: shapes outside the fixtures", () => {
  const base: MetaTemplate = {
    name: "t",
    language: "pt_BR",
    status: "APPROVED",
    category: "UTILITY",
    components: [{ type: "BODY", text: "Oi" }],
  };

  it("absent optional fields become null / POSITIONAL", () => {
    const item = toCatalogueItem(base);
    expect(item).toMatchObject({
      id: null,
      quality_score: null,
      rejected_reason: null,
      message_send_ttl_seconds: null,
      parameter_format: "POSITIONAL",
      header: null,
      footer: null,
      buttons: [],
      header_format: null,
      api_supported: true,
    });
  });

  it("quality_score keeps reasons and tolerates a missing date", () => {
    const item = toCatalogueItem({
      ...base,
      quality_score: { score: "YELLOW", reasons: [{ reason: "LOW_ENGAGEMENT" }] },
    });
    expect(item.quality_score).toEqual({ score: "YELLOW", date: null, reasons: [{ reason: "LOW_ENGAGEMENT" }] });
  });

  it("a NAMED header variable needs header_text; body names in order of appearance, repeated once", () => {
    const item = toCatalogueItem({
      ...base,
      parameter_format: "NAMED",
      components: [
        { type: "HEADER", format: "TEXT", text: "Oferta para {{cliente}}" },
        { type: "BODY", text: "{{cliente}}, use {{codigo}} até {{data}}. {{codigo}} vale uma vez." },
      ],
    });
    expect(item.header).toEqual({
      format: "TEXT",
      text: "Oferta para {{cliente}}",
      needs_text: true,
      needs_media: false,
    });
    expect(item.body).toEqual({
      text: "{{cliente}}, use {{codigo}} até {{data}}. {{codigo}} vale uma vez.",
      variables_count: 3,
      variable_names: ["cliente", "codigo", "data"],
    });
  });

  it.each([
    [
      "GIF header",
      [{ type: "HEADER", format: "GIF" }],
      "O cabeçalho do tipo GIF não pode ser preenchido pela API pública.",
    ],
    [
      "PRODUCT header",
      [{ type: "HEADER", format: "PRODUCT" }],
      "O cabeçalho do tipo PRODUCT não pode ser preenchido pela API pública.",
    ],
    [
      "LIMITED_TIME_OFFER",
      [{ type: "LIMITED_TIME_OFFER", limited_time_offer: { text: "Oferta" } }],
      "O componente LIMITED_TIME_OFFER não pode ser preenchido pela API pública.",
    ],
    [
      "FLOW button",
      [{ type: "BUTTONS", buttons: [{ type: "FLOW", text: "Abrir" }] }],
      "O botão do tipo FLOW não pode ser preenchido pela API pública.",
    ],
    [
      "CATALOG button",
      [{ type: "BUTTONS", buttons: [{ type: "CATALOG", text: "Ver catálogo" }] }],
      "O botão do tipo CATALOG não pode ser preenchido pela API pública.",
    ],
    [
      "MPM button",
      [{ type: "BUTTONS", buttons: [{ type: "MPM", text: "Ver itens" }] }],
      "O botão do tipo MPM não pode ser preenchido pela API pública.",
    ],
    [
      "two URL buttons with a variable",
      [
        {
          type: "BUTTONS",
          buttons: [
            { type: "URL", text: "A", url: "https://a.example/{{1}}" },
            { type: "URL", text: "B", url: "https://b.example/{{1}}" },
          ],
        },
      ],
      "O template tem mais de um botão de URL com variável e a API pública preenche apenas um (button_url_param).",
    ],
    [
      "two header variables",
      [{ type: "HEADER", format: "TEXT", text: "{{1}} e {{2}}" }],
      "O cabeçalho tem mais de uma variável e a API pública preenche apenas uma (header_text).",
    ],
    [
      "a body with 21 variables",
      [{ type: "BODY", text: Array.from({ length: 21 }, (_, i) => `{{${i + 1}}}`).join(" ") }],
      "O corpo tem 21 variáveis e a API pública aceita no máximo 20.",
    ],
    [
      "positional variables out of sequence",
      [{ type: "BODY", text: "{{1}} e {{3}}" }],
      "As variáveis do corpo não estão numeradas em sequência a partir de {{1}}.",
    ],
  ])("%s is not api_supported", (_label, components, reason) => {
    const item = toCatalogueItem({ ...base, components });
    expect(item.api_supported).toBe(false);
    expect(item.api_unsupported_reason).toBe(reason);
    // Support does not depend on approval, nor approval on support.
    expect(item.sendable).toBe(true);
  });

  it("an OTP button as created (type OTP) needs otp_code; a one-tap one too", () => {
    const item = toCatalogueItem({
      ...base,
      category: "AUTHENTICATION",
      components: [
        { type: "BODY", text: "{{1}} é seu código." },
        { type: "BUTTONS", buttons: [{ type: "OTP", otp_type: "ONE_TAP", text: "Preencher código" }] },
      ],
    });
    expect(item.api_supported).toBe(true);
    expect(item.variables_count).toBe(0);
    expect(item.buttons).toEqual([
      {
        index: 0,
        type: "OTP",
        text: "Preencher código",
        url: null,
        phone_number: null,
        needs_url_param: false,
        needs_coupon: false,
        needs_otp: true,
      },
    ]);
  });

  it("rejected_reason NONE (any case) is null", () => {
    expect(toCatalogueItem({ ...base, rejected_reason: "NONE" }).rejected_reason).toBeNull();
    expect(toCatalogueItem({ ...base, rejected_reason: "none" }).rejected_reason).toBeNull();
    expect(toCatalogueItem({ ...base, rejected_reason: "SCAM" }).rejected_reason).toBe("SCAM");
  });
});

describe("findTemplate", () => {
  it("matches name and language exactly", () => {
    expect(findTemplate(fixtures, "pedido_confirmado", "en_US")?.id).toBe("1000000000000002");
    expect(findTemplate(fixtures, "pedido_confirmado", "pt_BR")?.id).toBe("1000000000000001");
    expect(findTemplate(fixtures, "pedido_confirmado", "es")).toBeUndefined();
    expect(findTemplate(fixtures, "Pedido_Confirmado", "pt_BR")).toBeUndefined();
    expect(findTemplate(fixtures, "aviso_promocao", "pt_BR")?.status).toBe("PAUSED");
  });

  it("prefers the APPROVED item when a listing repeats a name and language", () => {
    const list = [
      { name: "x", language: "pt_BR", status: "PENDING", id: "1" },
      { name: "x", language: "pt_BR", status: "APPROVED", id: "2" },
    ];
    expect(findTemplate(list, "x", "pt_BR")?.id).toBe("2");
  });
});
