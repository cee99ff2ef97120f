import { ApiError } from "@gw/errors";
import type { ErrorCode } from "@gw/errors";
import type {
  GraphBodyComponent,
  GraphHeaderComponent,
  GraphHeaderMediaParameter,
  GraphOrderDetails,
  GraphOrderStatusComponent,
  GraphTemplateComponent,
  GraphTemplatePayload,
  GraphTextParameter,
  MetaTemplate,
  PixGoodsType,
  PixKeyType,
} from "@gw/meta";
import { graphRecipient, isBsuidIdentifier } from "../contacts/recipient.ts";
import { templateShape } from "./shape.ts";
import type { ButtonShape, TemplateShape } from "./shape.ts";

export interface PixItemInput {
  name: string;
  /** Unit value in cents. */
  amount: number;
  /** Default 1. */
  quantity?: number | null;
  retailer_id?: string | null;
}

export interface PixOrderInput {
  reference_id: string;
  pix_code: string;
  merchant_name: string;
  key: string;
  /** Default CNPJ. */
  key_type?: PixKeyType | null;
  items: readonly PixItemInput[];
  /** Cents; when given it must equal Σ amount×quantity + tax. */
  total_amount?: number | null;
  /** Cents; default 0. */
  tax?: number | null;
  /** Default digital-goods. */
  goods_type?: PixGoodsType | null;
  /** Issue 28: a payment link offered beside the Pix code. */
  payment_link?: { uri: string } | null;
  /** Issue 28: a boleto offered beside the Pix code (its digitable line, 47 or 48 digits). */
  boleto?: { digitable_line: string } | null;
}

/**
 * A template send's parameters (the names of the send request's fields, spec 2.1, so that a refusal's message names
 * the field the caller gave). Campaign recipients carry a subset of them.
 *
 * Index fields (`button_url_index`, `coupon_index`, `otp_index`): the template has at most one button of each
 * kind (otherwise it is not api_supported), so its position is known. The given index is accepted when it is that
 * position, or absent, or 0 (the spec's default, indistinguishable from "not given"); any other value is refused
 * as `template_params_mismatch` because the caller named a different button.
 *
 * `header_media.type`: the spec's default is `document`; absent (undefined/null) means "the template's format".
 */
export interface TemplateParameters {
  variables?: readonly string[] | null;
  variable_names?: readonly string[] | null;
  header_media?: { type?: string | null; link: string; filename?: string | null } | null;
  header_text?: string | null;
  button_url_param?: string | null;
  button_url_index?: number | null;
  coupon_code?: string | null;
  coupon_index?: number | null;
  otp_code?: string | null;
  otp_index?: number | null;
  pix_order?: PixOrderInput | null;
  /** The order's status, for an order-status template (built by the order's update, never by the send request). */
  order_status?: GraphOrderStatusComponent | null;
}

/** Meta's sub-category of the order-status templates (meta-late-2026 §1). */
export const ORDER_STATUS_SUB_CATEGORY = "ORDER_STATUS";

/** Whether the template is an order-status template (UTILITY, sub-category ORDER_STATUS). */
export function isOrderStatusTemplate(template: MetaTemplate): boolean {
  return template.sub_category?.toUpperCase() === ORDER_STATUS_SUB_CATEGORY;
}

/** What a template send is built from: its parameters, the recipient and the language. */
export interface TemplateSendInput extends TemplateParameters {
  /** Recipient: a phone normalized to digits, or a BSUID. */
  to: string;
  language: string;
  reply_to_message_id?: string | null;
}

// Meta's per-parameter limits for text parameters (Graph "parameter object"): header 60 characters; body
// 1024 characters when the send has other components, 32768 when the body is its only component.
export const HEADER_PARAM_MAX = 60;
export const BODY_PARAM_MAX = 1024;
export const BODY_ONLY_PARAM_MAX = 32768;
// A template URL is at most 2000 characters once the suffix is appended.
export const URL_MAX = 2000;
// Coupon codes: the spec caps them at 15 characters; Meta accepts letters and digits only.
export const COUPON_MAX = 15;
const COUPON_FORMAT = /^[A-Za-z0-9]+$/;
// OTP: at most 15 characters (Meta), printable ASCII without spaces (Meta's own example is "J$FpnYnP").
export const OTP_MAX = 15;
const OTP_FORMAT = /^[\x21-\x7E]+$/;
// Meta refuses a parameter with a line break or tab, or with more than 4 consecutive spaces (error 132018).
const LINE_BREAK_OR_TAB = /[\r\n\t\u2028\u2029]/;
const TOO_MANY_SPACES = / {5,}/;

function fail(code: ErrorCode, message: string): never {
  throw new ApiError(code, { message });
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function sentCount(n: number): string {
  if (n === 0) return "nenhuma foi enviada";
  return n === 1 ? "1 foi enviada" : `${n} foram enviadas`;
}

function length(text: string): number {
  return [...text].length;
}

/** Checks Meta's text-parameter rules; `what` starts the Portuguese sentence ("A variável 2"). */
function checkText(value: string, max: number, what: string, templateName: string): void {
  if (value.trim() === "") fail("variable_bad_format", `${what} do template ${templateName} está vazia.`);
  if (LINE_BREAK_OR_TAB.test(value)) {
    fail(
      "variable_bad_format",
      `${what} do template ${templateName} contém quebra de linha ou tabulação, que o provedor não aceita.`,
    );
  }
  if (TOO_MANY_SPACES.test(value)) {
    fail(
      "variable_bad_format",
      `${what} do template ${templateName} contém mais de 4 espaços seguidos, o que o provedor não aceita.`,
    );
  }
  const size = length(value);
  if (size > max)
    fail("variable_too_long", `${what} do template ${templateName} tem ${size} caracteres; o máximo é ${max}.`);
}

/** The button position to use, refusing an explicit index that names another button. */
function resolveIndex(
  given: number | null | undefined,
  button: ButtonShape,
  field: string,
  templateName: string,
): number {
  if (given === undefined || given === null || given === 0 || given === button.index) return button.index;
  return fail(
    "template_params_mismatch",
    `O botão de índice ${given} do template ${templateName} não é o esperado para ${field}; use o índice ${button.index}.`,
  );
}

function label(template: MetaTemplate): string {
  return `${template.name} (${template.language})`;
}

/**
 * The Graph API template send (reference E) for `input`, after every pre-check that can be made without
 * asking Meta. Throws ApiError with the spec's codes.
 */
export function buildTemplateSend(input: TemplateSendInput, template: MetaTemplate): GraphTemplatePayload {
  const name = template.name;
  if (template.status !== "APPROVED") {
    if (template.status === "PAUSED")
      fail("template_paused", `O template ${label(template)} está pausado pelo provedor e não pode ser enviado agora.`);
    fail(
      "invalid_template",
      `O template ${label(template)} está com status ${template.status}; só templates aprovados (APPROVED) podem ser enviados.`,
    );
  }
  const shape = templateShape(template);
  if (shape.unsupportedReason !== null) {
    fail(
      "template_format_unsupported",
      `O template ${name} não pode ser enviado pela API pública. ${shape.unsupportedReason}`,
    );
  }

  // Meta's 131062, before Meta: an authentication template (its code goes by one-tap, zero-tap or copy-code button
  // to a phone) cannot go to a user known only by a BSUID.
  if (shape.isAuthentication && isBsuidIdentifier(input.to))
    fail(
      "recipient_phone_required",
      `O template ${name} é de autenticação: o código só pode ser enviado ao número de telefone do destinatário, não ao seu ID de usuário (BSUID).`,
    );

  const orderButton = shape.buttons.find((b) => b.isOrderDetails);
  if (input.pix_order && !orderButton) {
    fail(
      "invalid_pix_order",
      `O template ${name} não tem botão de pedido Pix (ORDER_DETAILS); envie pix_order com um template de detalhes do pedido.`,
    );
  }
  if (orderButton && !input.pix_order)
    fail("invalid_pix_order", `O template ${name} é de cobrança Pix e exige pix_order.`);
  // An order-status template carries an order's status: only the order's update sends it, and it sends only one.
  if (isOrderStatusTemplate(template) && !input.order_status)
    fail(
      "invalid_template",
      `O template ${name} é de status de pedido (ORDER_STATUS): envie-o por POST /public/v1/orders/{reference_id}/status, com template.`,
    );
  if (input.order_status && !isOrderStatusTemplate(template))
    fail(
      "invalid_template",
      `O template ${name} não é de status de pedido: informe um template aprovado da subcategoria ORDER_STATUS (GET /public/v1/templates mostra sub_category).`,
    );

  const components: GraphTemplateComponent[] = [];
  const header = headerComponent(input, shape, name);
  if (header) components.push(header);
  const body = bodyComponent(input, shape, name);
  components.push(...buttonComponents(input, shape, name));
  if (input.order_status) components.push(input.order_status);
  // Body text limit depends on whether the send has other components (Meta's parameter-object rule).
  const bodyMax = components.length > 0 ? BODY_PARAM_MAX : BODY_ONLY_PARAM_MAX;
  if (body) {
    body.parameters.forEach((p, i) =>
      checkText(p.text, bodyMax, p.parameter_name ? `A variável {{${p.parameter_name}}}` : `A variável ${i + 1}`, name),
    );
    components.splice(header ? 1 : 0, 0, body);
  }

  return {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    ...graphRecipient(input.to),
    type: "template",
    template: { name, language: { code: template.language }, ...(components.length > 0 ? { components } : {}) },
    ...(input.reply_to_message_id ? { context: { message_id: input.reply_to_message_id } } : {}),
  };
}

function headerComponent(input: TemplateSendInput, shape: TemplateShape, name: string): GraphHeaderComponent | null {
  const header = shape.header;
  const media = input.header_media ?? null;
  const headerText = input.header_text ?? null;

  if (header?.needsMedia) {
    const format = header.format.toLowerCase() as GraphHeaderMediaParameter["type"];
    if (!media) {
      fail(
        "template_required_header_media",
        `O template ${name} tem cabeçalho ${header.format}; informe header_media com um link público do arquivo.`,
      );
    }
    const type = (media.type ?? format).toLowerCase();
    if (type !== format) {
      fail(
        "template_header_mismatch",
        `O cabeçalho do template ${name} é ${header.format}, mas header_media.type é ${type}; informe type "${format}".`,
      );
    }
    if (headerText !== null && headerText !== "")
      fail("template_params_mismatch", `O cabeçalho do template ${name} é de mídia; remova header_text.`);
    const object =
      format === "document" && media.filename ? { link: media.link, filename: media.filename } : { link: media.link };
    const parameter = { type: format, [format]: object } as unknown as GraphHeaderMediaParameter;
    return { type: "header", parameters: [parameter] };
  }
  if (media) {
    const what = header ? `é ${header.format}` : "não tem cabeçalho";
    fail("template_header_mismatch", `O template ${name} ${what}; remova header_media.`);
  }

  const variable = header?.variables[0];
  if (variable === undefined) {
    if (headerText !== null && headerText !== "")
      fail("template_params_mismatch", `O cabeçalho do template ${name} não tem variável; remova header_text.`);
    return null;
  }
  if (headerText === null || headerText === "")
    fail("template_params_mismatch", `O cabeçalho do template ${name} tem uma variável; informe header_text.`);
  checkText(headerText, HEADER_PARAM_MAX, "O texto do cabeçalho (header_text)", name);
  const parameter: GraphTextParameter =
    shape.parameterFormat === "NAMED"
      ? { type: "text", parameter_name: variable, text: headerText }
      : { type: "text", text: headerText };
  return { type: "header", parameters: [parameter] };
}

/** Body parameters in the send's order; lengths are checked by the caller once the component set is known. */
function bodyComponent(input: TemplateSendInput, shape: TemplateShape, name: string): GraphBodyComponent | null {
  const values = input.variables ?? [];
  if (shape.isAuthentication) {
    if (values.length > 0) {
      fail(
        "template_params_mismatch",
        `O template ${name} é de autenticação: informe o código em otp_code e deixe variables vazio.`,
      );
    }
    const otp = input.otp_code ?? "";
    if (otp === "") fail("invalid_otp", `O template ${name} é de autenticação e exige o código em otp_code.`);
    if (length(otp) > OTP_MAX || !OTP_FORMAT.test(otp)) {
      fail("invalid_otp", `O código otp_code deve ter de 1 a ${OTP_MAX} caracteres, sem espaços nem acentos.`);
    }
    return { type: "body", parameters: [{ type: "text", text: otp }] };
  }
  if (input.otp_code) fail("invalid_otp", `O template ${name} não é de autenticação; remova otp_code.`);

  const expected = shape.body.variables;
  if (values.length !== expected.length) {
    fail(
      "template_params_mismatch",
      `O template ${name} espera ${plural(expected.length, "variável", "variáveis")}, mas ${sentCount(values.length)}.`,
    );
  }
  if (expected.length === 0) return null;

  if (shape.parameterFormat === "POSITIONAL") {
    return { type: "body", parameters: values.map((text) => ({ type: "text", text })) };
  }
  const given = input.variable_names ?? [];
  const names = given.length > 0 ? given : expected;
  if (names.length !== values.length) {
    fail(
      "template_params_mismatch",
      `variable_names tem ${plural(names.length, "nome", "nomes")}, mas variables tem ${plural(values.length, "valor", "valores")}.`,
    );
  }
  const seen = new Set<string>();
  for (const variableName of names) {
    if (!expected.includes(variableName)) {
      fail(
        "template_params_mismatch",
        `O template ${name} não tem a variável {{${variableName}}}; as variáveis são: ${expected.join(", ")}.`,
      );
    }
    if (seen.has(variableName))
      fail("template_params_mismatch", `A variável {{${variableName}}} aparece mais de uma vez em variable_names.`);
    seen.add(variableName);
  }
  return {
    type: "body",
    parameters: values.map((text, i) => ({ type: "text", parameter_name: names[i] ?? "", text })),
  };
}

function buttonComponents(input: TemplateSendInput, shape: TemplateShape, name: string): GraphTemplateComponent[] {
  const out: GraphTemplateComponent[] = [];
  const urlParam = input.button_url_param ?? null;
  const coupon = input.coupon_code ?? null;

  const urlButton = shape.buttons.find((b) => b.needsUrlParam);
  if (urlButton) {
    if (urlParam === null || urlParam === "") {
      fail(
        "template_params_mismatch",
        `O botão "${urlButton.text ?? "URL"}" do template ${name} tem uma variável na URL; informe button_url_param.`,
      );
    }
    const index = resolveIndex(input.button_url_index, urlButton, "button_url_param", name);
    const staticLength = length((urlButton.url ?? "").replace(/\{\{[^}]*\}\}/g, ""));
    checkText(urlParam, Math.max(0, URL_MAX - staticLength), "O parâmetro do botão de URL (button_url_param)", name);
    const variable = urlButton.urlVariable ?? "1";
    const parameter: GraphTextParameter = /^\d+$/.test(variable)
      ? { type: "text", text: urlParam }
      : { type: "text", parameter_name: variable, text: urlParam };
    out.push({ type: "button", sub_type: "url", index: String(index), parameters: [parameter] });
  } else if (urlParam !== null && urlParam !== "") {
    fail("template_params_mismatch", `O template ${name} não tem botão de URL com variável; remova button_url_param.`);
  }

  const couponButton = shape.buttons.find((b) => b.needsCoupon);
  if (couponButton) {
    if (coupon === null || coupon === "")
      fail("template_params_mismatch", `O template ${name} tem um botão de copiar código; informe coupon_code.`);
    const index = resolveIndex(input.coupon_index, couponButton, "coupon_code", name);
    if (length(coupon) > COUPON_MAX)
      fail("variable_too_long", `O cupom (coupon_code) tem ${length(coupon)} caracteres; o máximo é ${COUPON_MAX}.`);
    if (!COUPON_FORMAT.test(coupon))
      fail("variable_bad_format", "O cupom (coupon_code) deve ter apenas letras e números.");
    out.push({
      type: "button",
      sub_type: "copy_code",
      index,
      parameters: [{ type: "coupon_code", coupon_code: coupon }],
    });
  } else if (coupon !== null && coupon !== "") {
    fail("template_params_mismatch", `O template ${name} não tem botão de copiar código; remova coupon_code.`);
  }

  // The OTP code itself was checked with the body (authentication templates always have it there).
  const otpButton = shape.buttons.find((b) => b.needsOtp);
  if (otpButton && input.otp_code) {
    const index = resolveIndex(input.otp_index, otpButton, "otp_code", name);
    out.push({
      type: "button",
      sub_type: "url",
      index: String(index),
      parameters: [{ type: "text", text: input.otp_code }],
    });
  }

  const orderButton = shape.buttons.find((b) => b.isOrderDetails);
  if (orderButton && input.pix_order) {
    out.push({
      type: "button",
      sub_type: "order_details",
      index: orderButton.index,
      parameters: [{ type: "action", action: { order_details: orderDetails(input.pix_order) } }],
    });
  }
  // Meta reads buttons by index; keep them in the template's order.
  return out.sort(
    (a, b) => Number((a as { index: string | number }).index) - Number((b as { index: string | number }).index),
  );
}

function orderDetails(order: PixOrderInput): GraphOrderDetails {
  if (order.items.length === 0) fail("invalid_pix_order", "O pedido Pix precisa de ao menos um item.");
  let subtotal = 0;
  const items = order.items.map((item, i) => {
    const quantity = item.quantity ?? 1;
    if (!Number.isInteger(item.amount) || item.amount < 0 || !Number.isInteger(quantity) || quantity < 1) {
      fail("invalid_pix_order", `O item ${i + 1} do pedido Pix tem valor ou quantidade inválidos.`);
    }
    subtotal += item.amount * quantity;
    return {
      ...(item.retailer_id ? { retailer_id: item.retailer_id } : {}),
      name: item.name,
      amount: { value: item.amount, offset: 100 as const },
      quantity,
    };
  });
  const tax = order.tax ?? 0;
  const expectedTotal = subtotal + tax;
  // A given total that disagrees with the items is refused rather than silently replaced: the payer must see
  // exactly the amount of the Pix code.
  if (order.total_amount !== undefined && order.total_amount !== null && order.total_amount !== expectedTotal) {
    fail(
      "invalid_pix_order",
      `O total do pedido Pix (${order.total_amount} centavos) não confere com a soma dos itens mais impostos (${expectedTotal} centavos).`,
    );
  }
  if (expectedTotal <= 0) fail("invalid_pix_order", "O valor total do pedido Pix deve ser maior que zero.");
  if (!Number.isSafeInteger(expectedTotal)) fail("invalid_pix_order", "O valor total do pedido Pix é grande demais.");

  return {
    reference_id: order.reference_id,
    type: order.goods_type ?? "digital-goods",
    payment_type: "br",
    payment_settings: [
      {
        type: "pix_dynamic_code",
        pix_dynamic_code: {
          code: order.pix_code,
          merchant_name: order.merchant_name,
          key: order.key,
          key_type: order.key_type ?? "CNPJ",
        },
      },
      // Issue 28: after the Pix entry, in this order; absent members leave the Graph JSON byte-identical.
      ...(order.payment_link ? [{ type: "payment_link" as const, payment_link: { uri: order.payment_link.uri } }] : []),
      ...(order.boleto ? [{ type: "boleto" as const, boleto: { digitable_line: order.boleto.digitable_line } }] : []),
    ],
    currency: "BRL",
    total_amount: { value: expectedTotal, offset: 100 },
    order: {
      status: "pending",
      tax: { value: tax, offset: 100 },
      items,
      subtotal: { value: subtotal, offset: 100 },
    },
  };
}
