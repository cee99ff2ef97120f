import type { MetaTemplate, MetaTemplateButton, MetaTemplateComponent } from "@gw/meta";

/**
 * What a template needs from a send, read once from Meta's listing item. Shared by the catalogue output
 * (spec 2.5) and the send pre-checks so both always agree.
 */
export interface TemplateShape {
  parameterFormat: "NAMED" | "POSITIONAL";
  isAuthentication: boolean;
  header: HeaderShape | null;
  body: { text: string; variables: string[] };
  footer: { text: string | null; codeExpirationMinutes: number | null } | null;
  buttons: ButtonShape[];
  /** Portuguese sentence when the public API cannot fill this template; null when it can. */
  unsupportedReason: string | null;
}

export interface HeaderShape {
  /** Upper-case Meta format: TEXT, IMAGE, VIDEO, DOCUMENT, GIF, LOCATION, PRODUCT, ... */
  format: string;
  text: string | null;
  /** Distinct variable tokens of the header text (`1` or a name). */
  variables: string[];
  needsMedia: boolean;
}

export interface ButtonShape {
  index: number;
  type: string;
  text: string | null;
  url: string | null;
  phoneNumber: string | null;
  /** The variable token of a URL button (`1` or a name), null for a static URL. */
  urlVariable: string | null;
  needsUrlParam: boolean;
  needsCoupon: boolean;
  needsOtp: boolean;
  isOrderDetails: boolean;
}

export const MEDIA_HEADER_FORMATS = ["IMAGE", "VIDEO", "DOCUMENT"] as const;
export type MediaHeaderFormat = (typeof MEDIA_HEADER_FORMATS)[number];

/** The send's `variables` carries at most 20 entries (spec 2.1). */
export const MAX_BODY_VARIABLES = 20;

const VARIABLE = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;
const OTP_URL_VARIABLE = /otp\{\{\s*[A-Za-z0-9_]+\s*\}\}/;

// What the public API can fill (everything else is `api_supported: false`, whatever its approval state):
//  - components HEADER, BODY, FOOTER, BUTTONS only: CAROUSEL, LIMITED_TIME_OFFER and any newer component
//    need per-card / per-offer parameters the send request has no field for;
//  - headers TEXT (at most one variable: one `header_text`), IMAGE, VIDEO, DOCUMENT (`header_media` by link);
//    LOCATION, GIF and PRODUCT headers need parameters the send request cannot carry;
//  - buttons QUICK_REPLY, PHONE_NUMBER, URL (static or one variable), COPY_CODE (`coupon_code`), OTP
//    (`otp_code`) and ORDER_DETAILS (`pix_order`); FLOW, CATALOG, MPM, SPM, APP, VOICE_CALL and unknown types
//    need actions (flow tokens, product sections, ...) the send request cannot carry;
//  - at most one URL button with a variable, one COPY_CODE and one ORDER_DETAILS button, since the send
//    request has one `button_url_param`, one `coupon_code` and one `pix_order`;
//  - a body of at most 20 variables (the limit of `variables`), positional ones numbered {{1}}..{{n}};
//  - authentication templates with exactly one body variable (the code, filled from `otp_code`).
const FILLABLE_COMPONENTS = new Set(["HEADER", "BODY", "FOOTER", "BUTTONS"]);
const FILLABLE_HEADERS = new Set(["TEXT", ...MEDIA_HEADER_FORMATS]);
const FILLABLE_BUTTONS = new Set(["QUICK_REPLY", "PHONE_NUMBER", "URL", "COPY_CODE", "OTP", "ORDER_DETAILS"]);

/** Distinct variable tokens of a text, in order of first appearance. */
export function variablesOf(text: string): string[] {
  const seen: string[] = [];
  for (const match of text.matchAll(VARIABLE)) {
    const token = match[1];
    if (token !== undefined && !seen.includes(token)) seen.push(token);
  }
  return seen;
}

function componentOf(template: MetaTemplate, type: string): MetaTemplateComponent | undefined {
  return template.components.find((c) => c.type.toUpperCase() === type);
}

function buttonShape(button: MetaTemplateButton, index: number, isAuthentication: boolean): ButtonShape {
  const type = button.type.toUpperCase();
  const url = typeof button.url === "string" ? button.url : null;
  const urlVariable = type === "URL" && url !== null ? (variablesOf(url)[0] ?? null) : null;
  // Meta lists an OTP button back as a URL button ending in `otp{{1}}` (reference D.2).
  const needsOtp = type === "OTP" || (isAuthentication && type === "URL" && url !== null && OTP_URL_VARIABLE.test(url));
  return {
    index,
    type,
    text: typeof button.text === "string" ? button.text : null,
    url,
    phoneNumber: typeof button.phone_number === "string" ? button.phone_number : null,
    urlVariable,
    needsUrlParam: type === "URL" && urlVariable !== null && !needsOtp,
    needsCoupon: type === "COPY_CODE",
    needsOtp,
    isOrderDetails: type === "ORDER_DETAILS",
  };
}

export function templateShape(template: MetaTemplate): TemplateShape {
  const isAuthentication = template.category.toUpperCase() === "AUTHENTICATION";
  const parameterFormat = template.parameter_format?.toUpperCase() === "NAMED" ? "NAMED" : "POSITIONAL";

  const headerComponent = componentOf(template, "HEADER");
  let header: HeaderShape | null = null;
  if (headerComponent) {
    const format = (headerComponent.format ?? "TEXT").toUpperCase();
    const text = typeof headerComponent.text === "string" ? headerComponent.text : null;
    header = {
      format,
      text,
      variables: format === "TEXT" && text !== null ? variablesOf(text) : [],
      needsMedia: (MEDIA_HEADER_FORMATS as readonly string[]).includes(format),
    };
  }

  const bodyComponent = componentOf(template, "BODY");
  const bodyText = typeof bodyComponent?.text === "string" ? bodyComponent.text : "";
  const body = { text: bodyText, variables: variablesOf(bodyText) };

  const footerComponent = componentOf(template, "FOOTER");
  const footer = footerComponent
    ? {
        text: typeof footerComponent.text === "string" ? footerComponent.text : null,
        codeExpirationMinutes:
          typeof footerComponent.code_expiration_minutes === "number" ? footerComponent.code_expiration_minutes : null,
      }
    : null;

  const buttons = (componentOf(template, "BUTTONS")?.buttons ?? []).map((b, i) => buttonShape(b, i, isAuthentication));

  const shape: TemplateShape = {
    parameterFormat,
    isAuthentication,
    header,
    body,
    footer,
    buttons,
    unsupportedReason: null,
  };
  shape.unsupportedReason = unsupportedReason(template, shape);
  return shape;
}

function unsupportedReason(template: MetaTemplate, shape: TemplateShape): string | null {
  for (const component of template.components) {
    const type = component.type.toUpperCase();
    if (!FILLABLE_COMPONENTS.has(type)) return `O componente ${type} não pode ser preenchido pela API pública.`;
  }
  if (shape.header && !FILLABLE_HEADERS.has(shape.header.format)) {
    return `O cabeçalho do tipo ${shape.header.format} não pode ser preenchido pela API pública.`;
  }
  if (shape.header && shape.header.variables.length > 1)
    return "O cabeçalho tem mais de uma variável e a API pública preenche apenas uma (header_text).";
  for (const button of shape.buttons) {
    if (!FILLABLE_BUTTONS.has(button.type))
      return `O botão do tipo ${button.type} não pode ser preenchido pela API pública.`;
  }
  if (shape.buttons.filter((b) => b.needsUrlParam).length > 1)
    return "O template tem mais de um botão de URL com variável e a API pública preenche apenas um (button_url_param).";
  if (shape.buttons.filter((b) => b.needsCoupon).length > 1)
    return "O template tem mais de um botão de copiar código e a API pública preenche apenas um (coupon_code).";
  if (shape.buttons.filter((b) => b.isOrderDetails).length > 1)
    return "O template tem mais de um botão de pedido e a API pública preenche apenas um (pix_order).";
  if (shape.body.variables.length > MAX_BODY_VARIABLES)
    return `O corpo tem ${shape.body.variables.length} variáveis e a API pública aceita no máximo ${MAX_BODY_VARIABLES}.`;
  if (shape.parameterFormat === "POSITIONAL") {
    const expected = shape.body.variables.map((_, i) => String(i + 1)).sort();
    if ([...shape.body.variables].sort().join() !== expected.join())
      return "As variáveis do corpo não estão numeradas em sequência a partir de {{1}}.";
  }
  if (shape.isAuthentication && shape.body.variables.length !== 1)
    return "O template de autenticação não tem exatamente uma variável para o código.";
  return null;
}
