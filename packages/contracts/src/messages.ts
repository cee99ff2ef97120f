import { z } from "zod";
import {
  InteractiveIn,
  LocationIn,
  MENU_SECTIONS_EXAMPLE,
  MediaIn,
  ReactionIn,
  checkSendKind,
} from "./message-kinds.ts";
import { isMalformedBsuid } from "./users.ts";

/** Spec 2.2. */
export const HeaderMediaIn = z
  .object({
    type: z.string().max(16).default("document").describe("image, video or document; default document"),
    // The provider downloads only http(s) links; refusing others here points at the right field (Meta's own
    // answer, 131009, would name a "parameter" and map to variable_bad_format).
    link: z
      .string()
      .min(8)
      .max(2048)
      .regex(/^https?:\/\/\S+$/i)
      .describe("A PUBLIC http(s) URL the provider downloads without login; not an upload"),
    filename: z.string().max(200).nullish(),
  })
  .meta({ id: "HeaderMediaIn" });

/** Spec 2.3. */
export const PixItemIn = z
  .object({
    name: z.string().min(1).max(60),
    amount: z.int().min(0).describe("UNIT value in cents"),
    quantity: z.int().min(1).max(1000).default(1),
    retailer_id: z.string().max(64).nullish(),
  })
  .meta({ id: "PixItemIn" });

/** Issue 28: a payment link offered beside the Pix code (Meta's `payment_settings[].payment_link`). */
export const PixPaymentLinkIn = z
  .object({
    uri: z
      .string()
      .min(12)
      .max(2048)
      .regex(/^https:\/\/\S+$/)
      .describe("An https link where the customer pays"),
  })
  .meta({ id: "PixPaymentLinkIn" });

/** Issue 28: a boleto offered beside the Pix code (Meta's `payment_settings[].boleto`). */
export const PixBoletoIn = z
  .object({
    digitable_line: z
      .string()
      .regex(/^\d{47,48}$/)
      .describe("The boleto's digitable line, digits only: 47 (bank) or 48 (collection)"),
  })
  .meta({ id: "PixBoletoIn" });

export const PixKeyType = z.enum(["CNPJ", "CPF", "EMAIL", "PHONE", "EVP"]);

export const PixOrderIn = z
  .object({
    reference_id: z.string().min(1).max(64),
    pix_code: z.string().min(20).max(1024),
    merchant_name: z.string().min(1).max(120),
    key: z.string().min(1).max(120),
    key_type: PixKeyType.default("CNPJ"),
    items: z.array(PixItemIn).min(1).max(30),
    total_amount: z.int().min(0).nullish(),
    tax: z.int().min(0).default(0),
    goods_type: z.enum(["digital-goods", "physical-goods"]).default("digital-goods"),
    payment_link: PixPaymentLinkIn.nullish(),
    boleto: PixBoletoIn.nullish(),
  })
  .meta({ id: "PixOrderIn" });

const optionalText = (max: number) => z.string().max(max).nullish();

// Request examples for the OpenAPI document; the API tests send each one through the sandbox.
const SEND_TEXT_EXAMPLE = {
  to: "+55 11 98765-4321",
  text: "Olá, Maria! Seu pedido saiu para entrega.",
  client_ref: "pedido-12345",
};
const SEND_TEMPLATE_EXAMPLE = {
  to: "5511987654321",
  template: "pedido_confirmado",
  language: "pt_BR",
  variables: ["Maria", "12345", "3"],
  header_text: "12345",
  client_ref: "pedido-12345",
};
const SEND_PIX_EXAMPLE = {
  to: "5511987654321",
  template: "cobranca_pix",
  language: "pt_BR",
  variables: ["Maria", "12345"],
  pix_order: {
    reference_id: "pedido-12345",
    pix_code:
      "00020101021226830014br.gov.bcb.pix2561qrcodes.exemplo.com.br/v2/cobv/9d36b84f5204000053039865406123.455802BR5912Loja Exemplo6009SAO PAULO62070503***6304ABCD",
    merchant_name: "Loja Exemplo",
    key: "39580525000189",
    key_type: "CNPJ",
    items: [
      { name: "Bolo de chocolate", amount: 4500, quantity: 1, retailer_id: "bolo-choc" },
      { name: "Refrigerante 2 L", amount: 900, quantity: 2 },
    ],
    total_amount: 6300,
    tax: 0,
    goods_type: "physical-goods",
  },
  client_ref: "pedido-12345",
};
// Issue 38, item 3: the menu bot's three sends (free-form, so the contact wrote in the last 24 hours).
const SEND_LIST_EXAMPLE = {
  to: "5511987654321",
  interactive: {
    type: "list",
    header: { type: "text", text: "Central de atendimento" },
    body: "Olá! Escolha uma opção:",
    footer: "Loja Exemplo",
    button: "Ver opções",
    sections: MENU_SECTIONS_EXAMPLE,
  },
  client_ref: "menu-atendimento",
};
const SEND_BUTTONS_EXAMPLE = {
  to: "5511987654321",
  interactive: {
    type: "button",
    body: "Seu pedido 12345 foi confirmado. Quer acompanhar a entrega?",
    footer: "Loja Exemplo",
    buttons: [
      { id: "rastrear-12345", title: "Rastrear pedido" },
      { id: "atendente", title: "Falar com atendente" },
    ],
  },
  client_ref: "pedido-12345",
};
/** `media_id` is what POST /public/v1/media answered for the PDF, on this business number. */
const SEND_DOCUMENT_EXAMPLE = {
  to: "5511987654321",
  media: { type: "document", media_id: "1013859600285441", filename: "boleto-12345.pdf", caption: "Seu boleto" },
  client_ref: "pedido-12345",
};

/**
 * A recipient, as `to` of a send, a validation and a window check: a phone number in any formatting, or a
 * business-scoped user id (`BR.1502576394655843`; meta-2026). Both within the contract's 1..32 characters (spec 8;
 * Meta's BSUIDs are 19–23 characters, docs/decisions.md). Which one it is, and whether it is valid, the services
 * decide; here a value written as a BSUID but not one is refused with a sentence that says so.
 */
export const recipientField = () =>
  z
    .string()
    .min(1)
    .max(32)
    .superRefine((value, ctx) => {
      if (isMalformedBsuid(value))
        ctx.addIssue({
          code: "custom",
          input: value,
          message:
            "O destinatário parece um ID de usuário do WhatsApp (BSUID), mas não tem o formato dele: o país em duas letras maiúsculas, um ponto e letras ou dígitos (por exemplo BR.1502576394655843), sem outros caracteres.",
        });
    });

/**
 * Spec 2.1. Only `to` is required; unknown fields are ignored. Parse `selectSendKind(body)`: with a `text` or a
 * `template` the new members (interactive, media, reaction, location) are not read, as before they existed.
 */
export const PublicSendIn = z
  .object({
    to: recipientField().describe(
      "The recipient: a phone number (any formatting), or a WhatsApp business-scoped user id (BSUID, e.g. `BR.1502576394655843`) of a user known only by it",
    ),
    phone_number_id: optionalText(64).describe("Selects the business number; default number of the account otherwise"),
    text: optionalText(4096),
    template: optionalText(255).describe("Template name"),
    language: z.string().max(16).default("pt_BR"),
    variables: z
      .array(z.string())
      .max(20)
      .nullish()
      .describe("Filled in order into {{1}}, {{2}}, ... of the template body"),
    variable_names: z.array(z.string()).max(20).nullish(),
    header_media: HeaderMediaIn.nullish(),
    header_text: optionalText(200),
    button_url_param: optionalText(200),
    button_url_index: z.int().min(0).max(9).default(0),
    coupon_code: optionalText(15),
    coupon_index: z.int().min(0).max(9).default(0),
    otp_code: optionalText(15),
    otp_index: z.int().min(0).max(9).default(0),
    reply_to_message_id: optionalText(128).describe(
      "Quotes a message (any kind but a reaction): a `message_id` of this conversation",
    ),
    pix_order: PixOrderIn.nullish(),
    client_ref: optionalText(64).describe("Caller reference, echoed in message.status events"),
    // Issue 27: one of these per request, read only when the body has neither `text` nor `template` (selectSendKind).
    interactive: InteractiveIn.nullish().describe(
      "Reply buttons, a list, a URL button or a location request (free-form: the 24-hour window must be open). Ignored when `text` or `template` is given",
    ),
    media: MediaIn.nullish().describe(
      "An image, video, audio, document or sticker, by `media_id` or `link` (free-form). Ignored when `text` or `template` is given",
    ),
    reaction: ReactionIn.nullish().describe(
      'A reaction to a message the contact sent; `emoji: ""` removes it (free-form). Ignored when `text` or `template` is given',
    ),
    location: LocationIn.nullish().describe("A map pin (free-form). Ignored when `text` or `template` is given"),
  })
  .superRefine(checkSendKind)
  // Docs only: `examples` feeds the OpenAPI document (messages.send.ts names them text, template, pix, list, buttons,
  // document); no effect on parsing.
  .meta({
    id: "PublicSendIn",
    examples: [
      SEND_TEXT_EXAMPLE,
      SEND_TEMPLATE_EXAMPLE,
      SEND_PIX_EXAMPLE,
      SEND_LIST_EXAMPLE,
      SEND_BUTTONS_EXAMPLE,
      SEND_DOCUMENT_EXAMPLE,
    ],
  });
export type PublicSendIn = z.infer<typeof PublicSendIn>;

export const SendResultOut = z
  .object({
    success: z.literal(true),
    data: z.object({
      message_id: z.string().describe("The id later carried as message_id in message.status"),
      to: z.string().describe("Recipient: a phone normalized to digits, or the BSUID as given"),
      status: z.literal("sent"),
      type: z
        .enum(["text", "template", "interactive", "media", "reaction", "location"])
        .describe("The kind sent: `text` and `template` as before; the others for the members of the same names"),
      phone_number_id: z.string(),
      client_ref: z.string().nullable(),
    }),
  })
  .meta({ id: "SendResultOut" });
export type SendResultOut = z.infer<typeof SendResultOut>;

/** Spec 2.4. */
export const ValidateIn = z
  .object({
    to: recipientField(),
    country: z
      .string()
      .max(2)
      .nullish()
      .describe("ISO 3166-1 alpha-2; BR when absent and the number has no country code"),
  })
  // Docs only (OpenAPI example); no effect on parsing.
  .meta({ id: "ValidateIn", examples: [{ to: "(11) 98765-4321", country: "BR" }] });

export const ValidateOut = z
  .object({
    success: z.literal(true),
    data: z.object({
      to: z.string().describe("Digits only, with country code when valid; a BSUID as given"),
      valid: z.boolean(),
      kind: z
        .enum(["phone", "bsuid"])
        .describe("What `to` is: a phone number, or a WhatsApp business-scoped user id (BSUID; country is its prefix)"),
      country: z.string().nullable(),
      type: z.string().nullable().describe("mobile, fixed_line, fixed_line_or_mobile, voip, toll_free, ... when known"),
      e164: z.string().nullable(),
      national_format: z.string().nullable(),
    }),
  })
  .meta({ id: "ValidateOut" });

export const WindowQuery = z.object({ phone_number_id: z.string().max(64).optional() });
export const WindowPath = z.object({ to: recipientField() });
export const WindowOut = z
  .object({
    success: z.literal(true),
    data: z.object({
      to: z.string().describe("The contact: digits of a phone number, or a BSUID as given"),
      phone_number_id: z
        .string()
        .nullable()
        .describe("The business number checked; null when the account has none (then `open` is false)"),
      open: z.boolean(),
      expires_at: z.string().nullable().describe("ISO 8601 UTC"),
      last_inbound_at: z.string().nullable().describe("ISO 8601 UTC"),
    }),
  })
  .meta({ id: "WindowOut" });

export const TemplatesQuery = z.object({
  status: z.string().max(32).default("APPROVED"),
  phone_number_id: z.string().max(64).optional(),
});

export const IdempotencyKeyHeader = z
  .string()
  .min(1)
  .max(64)
  .describe("A unique value per message; repeat it (with the same body) after a connection error or a 5xx");
/** The send's headers as the OpenAPI document names them (the API reads them case-insensitively). */
export const SendRequestHeaders = z.object({ "Idempotency-Key": IdempotencyKeyHeader.optional() });
export const SendResponseHeaders = z.object({
  "Idempotent-Replayed": z
    .literal("true")
    .optional()
    .describe("Present when this is the stored answer of an earlier call with the same Idempotency-Key"),
});
/** The send's 409: `idempotency_in_flight` always carries Retry-After (the other two codes never change by waiting). */
export const SendConflictHeaders = z.object({
  "Retry-After": z
    .int()
    .min(1)
    .optional()
    .describe(
      "With `idempotency_in_flight` (always): seconds until the key can settle even if the call holding it never ends (its process's lease running out, or the reservation going stale, whichever comes first); repeat with the same key after it. The call usually ends sooner.",
    ),
});

/** POST /messages/{message_id}/read: the inbound message, by the id `message.received` carried (Meta's wamid). */
export const ReadPath = z.object({
  message_id: z
    .string()
    .min(1)
    .max(128)
    .describe(
      "The `message_id` of a `message.received` event of this account (the contact's message), percent-encoded in the path",
    ),
});

/** The body is optional: absent, or `{}`, marks the message read without a typing indicator. Unknown fields are ignored. */
export const ReadIn = z
  .object({
    typing: z
      .boolean()
      .default(false)
      .describe(
        "Also show the contact a typing indicator (until the reply arrives, or 25 s). Only when a reply is coming: one per conversation at a time",
      ),
  })
  // Docs only: `examples` feeds the OpenAPI document (messages.read.ts names them); no effect on parsing.
  .meta({ id: "ReadIn", examples: [{ typing: true }, {}] });
export type ReadIn = z.infer<typeof ReadIn>;

export const ReadOut = z
  .object({
    success: z.literal(true),
    data: z.object({
      message_id: z.string().describe("The inbound message marked read (no message is sent: there is no new id)"),
      phone_number_id: z.string().describe("The business number that received it, through which it was marked"),
      read: z.literal(true),
      typing: z.boolean().describe("Whether a typing indicator was shown"),
      read_at: z
        .string()
        .describe(
          "ISO 8601 UTC: when it was marked read, by this call or an earlier one (marking a message also marks the earlier messages of its conversation)",
        ),
    }),
  })
  .meta({ id: "ReadOut" });
export type ReadOut = z.infer<typeof ReadOut>;
