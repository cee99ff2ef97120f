import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createLogger } from "@gw/logger";
import { createMetaClient } from "@gw/meta";
import type { MetaClient, MetaTemplate } from "@gw/meta";
import { FIXTURE_TEMPLATES, startSandbox } from "@gw/provider-sandbox";
import type { RunningSandbox } from "@gw/provider-sandbox";
import { buildTemplateSend, findTemplate, toCatalogueItem } from "../src/templates/index.ts";
import type { TemplateSendInput } from "../src/templates/index.ts";

const TOKEN = "sandbox-token";
const WABA_ID = "102290129340398";
const PHONE_NUMBER_ID = "106540352242922";
const TO = "5511987654321";
const logger = createLogger({ service: "templates-sandbox-test", silent: process.env.TEST_LOG !== "1" });

let sandbox: RunningSandbox;
let meta: MetaClient;
let catalogue: MetaTemplate[];

beforeAll(async () => {
  sandbox = await startSandbox({ appSecret: "app-secret", accessToken: TOKEN, autoStatuses: false, logger });
  meta = createMetaClient({ baseUrl: sandbox.url, apiVersion: "v23.0", accessToken: TOKEN, timeoutMs: 5_000, logger });
  catalogue = await meta.listTemplates(WABA_ID, { pageSize: 7 });
});

afterAll(async () => {
  await sandbox.close();
});

const PIX = {
  reference_id: "pedido-12345",
  pix_code: "00020101021226700014br.gov.bcb.pix2548pix.example.com/qr/v2/9d36b84f",
  merchant_name: "Loja Exemplo LTDA",
  key: "39580525000189",
  items: [
    { name: "Camiseta", amount: 4990, quantity: 2, retailer_id: "SKU-1" },
    { name: "Frete", amount: 1500 },
  ],
  tax: 520,
};

// One send per fixture the public API can fill, as a caller would write it from the catalogue item.
const SENDS: [name: string, language: string, input: Partial<TemplateSendInput>][] = [
  ["pedido_confirmado", "pt_BR", { variables: ["Maria", "12345", "3"], header_text: "12345" }],
  [
    "pedido_confirmado",
    "en_US",
    {
      variables: ["Mary", "12345", "3"],
      header_text: "12345",
      reply_to_message_id: "wamid.HBgLNTUxMTk4NzY1NDMyMRUCABIYFjNFQjA",
    },
  ],
  [
    "promo_imagem",
    "pt_BR",
    { variables: ["Maria", "20%"], header_media: { type: "image", link: "https://cdn.exemplo.com.br/promo.jpg" } },
  ],
  [
    "boleto_documento",
    "pt_BR",
    {
      variables: ["Maria", "10/12/2026"],
      header_media: { type: "document", link: "https://cdn.exemplo.com.br/b.pdf", filename: "boleto.pdf" },
    },
  ],
  [
    "video_boas_vindas",
    "pt_BR",
    { variables: ["Maria"], header_media: { type: "video", link: "https://cdn.exemplo.com.br/v.mp4" } },
  ],
  [
    "lembrete_consulta",
    "pt_BR",
    { variables: ["14:30", "Maria", "10/12/2026"], variable_names: ["hora", "nome", "data"] },
  ],
  ["codigo_verificacao", "pt_BR", { otp_code: "J$FpnYnP" }],
  ["cupom_desconto", "pt_BR", { variables: ["PROMO10", "10%"], coupon_code: "PROMO10", coupon_index: 0 }],
  ["rastreio_pedido", "pt_BR", { variables: ["ABC123"], button_url_param: "ABC123" }],
  ["fale_conosco", "pt_BR", {}],
  ["cobranca_pix", "pt_BR", { variables: ["Maria", "12345"], pix_order: PIX }],
  ["hello_world", "en_US", {}],
];

describe("template sends built from the listed catalogue are accepted by the provider sandbox", () => {
  it("covers every APPROVED, api_supported fixture", () => {
    // An order-status template moves an order the sandbox must know first: orders.lifecycle.e2e sends it.
    const fillable = catalogue
      .map(toCatalogueItem)
      .filter((t) => t.sendable && t.api_supported && t.sub_category !== "ORDER_STATUS");
    expect(fillable.map((t) => `${t.name}/${t.language}`).sort()).toEqual(SENDS.map(([n, l]) => `${n}/${l}`).sort());
    expect(catalogue).toHaveLength(FIXTURE_TEMPLATES.length);
  });

  it.each(SENDS)("%s (%s)", async (name, language, input) => {
    const template = findTemplate(catalogue, name, language);
    if (!template) throw new Error(`${name} ${language} not listed`);
    const item = toCatalogueItem(template);
    // The catalogue tells the caller exactly how many `variables` to send.
    expect(input.variables?.length ?? 0).toBe(item.variables_count);

    const payload = buildTemplateSend({ to: TO, language, ...input }, template);
    const result = await meta.sendMessage(PHONE_NUMBER_ID, payload);
    expect(result.wamid).toMatch(/^wamid\./);
    expect(result.messageStatus).toBe("accepted");

    const sent = sandbox.sandbox.state.sent.find((s) => s.wamid === result.wamid);
    expect(sent?.body).toEqual(JSON.parse(JSON.stringify(payload)));
  });
});
