import { z } from "zod";

/** Response schemas of the template catalogue (spec 2.5). Every field is always present (nullable, never optional). */

export const TemplateQualityOut = z
  .object({
    score: z.string().nullable().describe("Valor do provedor: GREEN, YELLOW, RED, UNKNOWN; null quando ausente."),
    date: z.number().int().nullable().describe("Unix em segundos."),
    reasons: z.array(z.unknown()).describe("Vazio quando não há motivos; a estrutura pode variar."),
  })
  .meta({ id: "TemplateQualityOut" });

export const TemplateHeaderOut = z
  .object({
    format: z.string().describe("TEXT, IMAGE, VIDEO, DOCUMENT, ..."),
    text: z.string().nullable(),
    needs_text: z.boolean().describe("O texto do cabeçalho tem uma variável: envie header_text."),
    needs_media: z.boolean().describe("Cabeçalho de imagem, vídeo ou documento: envie header_media."),
  })
  .meta({ id: "TemplateHeaderOut" });

export const TemplateBodyOut = z
  .object({
    text: z.string(),
    variables_count: z.number().int().min(0).describe("Quantidade de itens que `variables` do envio deve ter."),
    variable_names: z.array(z.string()).describe("Nomes das variáveis (templates NAMED), na ordem em que aparecem."),
  })
  .meta({ id: "TemplateBodyOut" });

export const TemplateFooterOut = z
  .object({
    text: z.string().nullable(),
    code_expiration_minutes: z.number().int().nullable(),
  })
  .meta({ id: "TemplateFooterOut" });

export const TemplateButtonOut = z
  .object({
    index: z.number().int().min(0),
    type: z.string(),
    text: z.string().nullable(),
    url: z.string().nullable(),
    phone_number: z.string().nullable(),
    needs_url_param: z.boolean().describe("Botão de URL com variável: envie button_url_param."),
    needs_coupon: z.boolean().describe("Botão de copiar código: envie coupon_code."),
    needs_otp: z.boolean().describe("Botão de código de verificação: envie otp_code."),
  })
  .meta({ id: "TemplateButtonOut" });

export const TemplateItemOut = z
  .object({
    id: z.string().nullable(),
    name: z.string(),
    language: z.string(),
    status: z.string(),
    category: z.string(),
    sub_category: z
      .string()
      .nullable()
      .describe(
        "Meta's sub-category: `ORDER_STATUS` (sent only by POST /orders/{reference_id}/status), `ORDER_DETAILS` (a Pix order), `CUSTOM`; null when Meta gives none",
      ),
    quality_score: TemplateQualityOut.nullable(),
    rejected_reason: z.string().nullable(),
    message_send_ttl_seconds: z.number().int().nullable(),
    sendable: z.boolean(),
    api_supported: z.boolean(),
    api_unsupported_reason: z.string().nullable(),
    header: TemplateHeaderOut.nullable(),
    parameter_format: z.enum(["NAMED", "POSITIONAL"]),
    body: TemplateBodyOut,
    footer: TemplateFooterOut.nullable(),
    buttons: z.array(TemplateButtonOut),
    body_text: z.string(),
    variables_count: z.number().int().min(0),
    variable_names: z.array(z.string()),
    header_format: z.string().nullable(),
    components: z.array(z.record(z.string(), z.unknown())),
  })
  .meta({ id: "TemplateItemOut" });

export const TemplateCatalogueOut = z
  .object({
    success: z.literal(true),
    data: z.object({ templates: z.array(TemplateItemOut) }),
  })
  .meta({ id: "TemplateCatalogueOut" });

export type TemplateQualityOut = z.infer<typeof TemplateQualityOut>;
export type TemplateHeaderOut = z.infer<typeof TemplateHeaderOut>;
export type TemplateBodyOut = z.infer<typeof TemplateBodyOut>;
export type TemplateFooterOut = z.infer<typeof TemplateFooterOut>;
export type TemplateButtonOut = z.infer<typeof TemplateButtonOut>;
export type TemplateItemOut = z.infer<typeof TemplateItemOut>;
export type TemplateCatalogueOut = z.infer<typeof TemplateCatalogueOut>;
