import { charLength, isRecord, nonEmptyString, parseIndex, type JsonRecord } from "../json.ts";
import {
  ORDER_STATUS_SUB_CATEGORY,
  type SandboxTemplate,
  type TemplateButton,
  type TemplateComponent,
} from "../types.ts";
import { MetaError } from "./errors.ts";
import { validateOrderDetails } from "./order-details.ts";
import { checkOrderStatusComponent } from "./order-status.ts";

const OTP_MAX = 15;
const COUPON_MAX = 20;
const BODY_MAX = 1024;

interface RequestComponent {
  type: string;
  subType: string | undefined;
  index: number | undefined;
  parameters: unknown[];
  raw: JsonRecord;
}

/** Variables of a template text: `{{1}}`… for POSITIONAL, `{{name}}`… for NAMED (distinct, in order). */
export function templateVariables(text: string | undefined, format: SandboxTemplate["parameter_format"]): string[] {
  if (!text) return [];
  const pattern = format === "NAMED" ? /\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/g : /\{\{\s*(\d+)\s*\}\}/g;
  return [...new Set([...text.matchAll(pattern)].map((m) => m[1] ?? ""))];
}

function countMismatch(where: string, received: number, expected: number): MetaError {
  return new MetaError(
    132000,
    `${where}: number of localizable_params (${received}) does not match the expected number of params (${expected})`,
  );
}

function parseComponents(value: unknown): RequestComponent[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new MetaError(100, "Param template['components'] must be an array.");
  return value.map((item: unknown, i: number) => {
    if (!isRecord(item) || typeof item.type !== "string") {
      throw new MetaError(100, `The parameter template['components'][${i}]['type'] is required.`);
    }
    if (item.parameters !== undefined && !Array.isArray(item.parameters)) {
      throw new MetaError(100, `Param template['components'][${i}]['parameters'] must be an array.`);
    }
    return {
      type: item.type.toLowerCase(),
      subType: typeof item.sub_type === "string" ? item.sub_type.toLowerCase() : undefined,
      index: parseIndex(item.index),
      parameters: Array.isArray(item.parameters) ? item.parameters : [],
      raw: item,
    };
  });
}

/** The text a body/header parameter contributes, validated like Meta does. */
function parameterText(where: string, param: unknown): string {
  if (!isRecord(param) || typeof param.type !== "string") {
    throw new MetaError(100, `${where}: the parameter type is required.`);
  }
  switch (param.type.toLowerCase()) {
    case "text": {
      if (!nonEmptyString(param.text)) throw new MetaError(131008, "Parameter of type text is missing text value");
      // Meta refuses new lines, tabs and more than four consecutive spaces inside parameters.
      if (/[\n\t]| {5,}/.test(param.text)) {
        throw new MetaError(132018, "Param text cannot have new-line/tab characters or more than 4 consecutive spaces");
      }
      return param.text;
    }
    case "currency":
    case "date_time": {
      const inner = param[param.type.toLowerCase()];
      if (!isRecord(inner) || !nonEmptyString(inner.fallback_value)) {
        throw new MetaError(131008, `Parameter of type ${param.type} is missing fallback_value`);
      }
      return inner.fallback_value;
    }
    default:
      throw new MetaError(131009, `${where}: parameter of type ${param.type} is not valid here`);
  }
}

/** Checks text parameters against the template's variables; returns them keyed by variable. */
function checkTextParameters(
  where: string,
  template: SandboxTemplate,
  variables: string[],
  params: unknown[],
): Map<string, string> {
  if (template.parameter_format === "NAMED") {
    // Meta reports a missing name before any count mismatch (positional values sent to a NAMED template).
    for (const param of params) {
      if (!isRecord(param) || !nonEmptyString(param.parameter_name))
        throw new MetaError(100, "Parameter name is missing or empty");
    }
  }
  if (params.length !== variables.length) throw countMismatch(where, params.length, variables.length);
  const values = new Map<string, string>();
  params.forEach((param, i) => {
    const text = parameterText(where, param);
    if (template.parameter_format === "NAMED") {
      const name = isRecord(param) && typeof param.parameter_name === "string" ? param.parameter_name : "";
      if (!variables.includes(name))
        throw new MetaError(100, `Parameter name (${name}) does not exist in the template`);
      values.set(name, text);
    } else {
      values.set(String(i + 1), text);
    }
  });
  return values;
}

function checkHeader(
  template: SandboxTemplate,
  header: TemplateComponent | undefined,
  request: RequestComponent | undefined,
): void {
  const params = request?.parameters ?? [];
  if (!header) {
    if (params.length > 0) throw countMismatch("header", params.length, 0);
    return;
  }
  const format = header.format ?? "TEXT";
  if (format === "TEXT") {
    checkTextParameters("header", template, templateVariables(header.text, template.parameter_format), params);
    return;
  }
  // GIF headers are sent as videos.
  const expected = format === "GIF" ? "VIDEO" : format;
  const first: unknown = params[0];
  const received = isRecord(first) && typeof first.type === "string" ? first.type.toUpperCase() : "UNKNOWN";
  if (received !== expected)
    throw new MetaError(132012, `header: Format mismatch, expected ${expected}, received ${received}`);
  if (params.length > 1) throw countMismatch("header", params.length, 1);
  const media = isRecord(first) ? first[received.toLowerCase()] : undefined;
  if (expected === "LOCATION") {
    if (!isRecord(media) || typeof media.latitude !== "number" || typeof media.longitude !== "number") {
      throw new MetaError(131008, "header: location requires latitude and longitude");
    }
    return;
  }
  // Meta accepts an uploaded media id or a public link; the gateway uses links.
  if (!isRecord(media) || (!nonEmptyString(media.link) && !nonEmptyString(media.id))) {
    throw new MetaError(131008, `header: ${received.toLowerCase()} requires a link or an id`);
  }
  if (media.link !== undefined && !isHttpUrl(media.link)) {
    throw new MetaError(131009, `header: ${received.toLowerCase()} link is not a valid http(s) URL`);
  }
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

function checkBody(
  template: SandboxTemplate,
  body: TemplateComponent | undefined,
  request: RequestComponent | undefined,
): void {
  const variables = templateVariables(body?.text, template.parameter_format);
  const values = checkTextParameters("body", template, variables, request?.parameters ?? []);
  const text = (body?.text ?? "").replace(/\{\{\s*([^}\s]+)\s*\}\}/g, (whole, key: string) => values.get(key) ?? whole);
  if (charLength(text) > BODY_MAX)
    throw new MetaError(132005, `body: text is longer than ${BODY_MAX} characters after parameter substitution`);
}

/** The `sub_type` a send must use for each button type that takes parameters. */
const SUB_TYPES: Partial<Record<TemplateButton["type"], string>> = {
  URL: "url",
  QUICK_REPLY: "quick_reply",
  COPY_CODE: "copy_code",
  ORDER_DETAILS: "order_details",
  FLOW: "flow",
  CATALOG: "catalog",
};

function singleText(request: RequestComponent | undefined): string | undefined {
  const param: unknown = request?.parameters[0];
  return request?.parameters.length === 1 && isRecord(param) && param.type === "text" && nonEmptyString(param.text)
    ? param.text
    : undefined;
}

function checkButtons(template: SandboxTemplate, buttons: TemplateButton[], requests: RequestComponent[]): void {
  for (const request of requests) {
    if (request.index === undefined)
      throw new MetaError(131008, "buttons: index is required on every button component");
    const button = buttons[request.index];
    if (!button)
      throw new MetaError(131009, `buttons: button at index ${request.index} does not exist in the template`);
    if (SUB_TYPES[button.type] !== request.subType) {
      throw new MetaError(
        131009,
        `buttons: button at index ${request.index} is of type ${button.type}, received sub_type ${request.subType ?? "none"}`,
      );
    }
  }
  const byIndex = new Map(requests.map((r) => [r.index, r]));
  buttons.forEach((button, index) => {
    const request = byIndex.get(index);
    if (button.type === "URL" && /\{\{\s*\d+\s*\}\}/.test(button.url ?? "")) {
      const value = singleText(request);
      if (value === undefined) {
        const what = template.category === "AUTHENTICATION" ? "the one-time password" : "one text parameter";
        throw new MetaError(131008, `buttons: button at index ${index} of type URL requires ${what}`);
      }
      if (template.category === "AUTHENTICATION" && charLength(value) > OTP_MAX) {
        throw new MetaError(131009, `otp: the code must have at most ${OTP_MAX} characters`);
      }
    } else if (button.type === "COPY_CODE") {
      const param: unknown = request?.parameters[0];
      if (!isRecord(param) || param.type !== "coupon_code" || !nonEmptyString(param.coupon_code)) {
        throw new MetaError(
          131008,
          `buttons: button at index ${index} of type COPY_CODE requires a coupon_code parameter`,
        );
      }
      if (charLength(param.coupon_code) > COUPON_MAX) {
        throw new MetaError(131009, `coupon_code: must have at most ${COUPON_MAX} characters`);
      }
    } else if (button.type === "ORDER_DETAILS") {
      const param: unknown = request?.parameters[0];
      const action = isRecord(param) && param.type === "action" && isRecord(param.action) ? param.action : undefined;
      if (!action || action.order_details === undefined) {
        throw new MetaError(
          131009,
          `order_details: button at index ${index} requires an action parameter with order_details`,
        );
      }
      validateOrderDetails(action.order_details, { requireOrder: true });
    }
  });
}

/** Authentication templates carry the one-time password twice: in the body and in the copy-code URL button. */
function checkOtp(template: SandboxTemplate, body: RequestComponent | undefined): void {
  if (template.category !== "AUTHENTICATION") return;
  const code = singleText(body);
  if (code === undefined)
    throw new MetaError(131008, "otp: the one-time password is required in the body and in the URL button");
  if (charLength(code) > OTP_MAX) throw new MetaError(131009, `otp: the code must have at most ${OTP_MAX} characters`);
}

function checkCarousel(template: SandboxTemplate, components: RequestComponent[]): void {
  const carousel = template.components.find((c) => c.type === "CAROUSEL");
  if (!carousel) return;
  const request = components.find((c) => c.type === "carousel");
  const cards = request?.raw.cards;
  if (!Array.isArray(cards) || cards.length !== (carousel.cards ?? []).length) {
    throw new MetaError(131008, `carousel: ${(carousel.cards ?? []).length} cards are required`);
  }
}

/** Whether the template is an order-status template (sub_category ORDER_STATUS, meta-late-2026 §1). */
function isOrderStatusTemplate(template: SandboxTemplate): boolean {
  return template.sub_category?.toUpperCase() === ORDER_STATUS_SUB_CATEGORY;
}

/**
 * An order-status template needs exactly one `order_status` component (131008 without it); any other template may
 * carry none (131009). Its shape is checked in `order-status.ts`, the order it names in `orders.ts`.
 */
function checkOrderStatus(template: SandboxTemplate, components: RequestComponent[]): void {
  const requests = components.filter((c) => c.type === "order_status");
  if (!isOrderStatusTemplate(template)) {
    if (requests.length > 0)
      throw new MetaError(
        131009,
        `order_status: the template ${template.name} is not an order-status template (sub_category ${ORDER_STATUS_SUB_CATEGORY})`,
      );
    return;
  }
  const [request, ...others] = requests;
  if (!request)
    throw new MetaError(
      131008,
      `order_status: the order-status template ${template.name} requires a component of type order_status`,
    );
  if (others.length > 0) throw new MetaError(131009, "order_status: only one order_status component is allowed");
  checkOrderStatusComponent(request.parameters);
}

/**
 * Validates the `template` object of a send against the catalogue like Meta does, and returns the template.
 * Throws MetaError with Meta's code and details text on refusal. `checkEligible` may refuse the approved template
 * before its parameters are looked at (the Marketing Messages API takes only marketing templates).
 */
export function validateTemplateSend(
  templates: SandboxTemplate[],
  input: unknown,
  checkEligible: (template: SandboxTemplate) => void = () => undefined,
): SandboxTemplate {
  if (!isRecord(input)) throw new MetaError(100, "The parameter template is required.");
  if (!nonEmptyString(input.name)) throw new MetaError(100, "The parameter template['name'] is required.");
  const code = isRecord(input.language) ? input.language.code : undefined;
  if (!nonEmptyString(code)) throw new MetaError(100, "The parameter template['language']['code'] is required.");
  const template = templates.find((t) => t.name === input.name && t.language === code);
  const notFound = `template name (${input.name}) does not exist in ${code}`;
  if (!template) throw new MetaError(132001, notFound);
  if (template.status === "PAUSED") {
    throw new MetaError(132015, "Template is paused due to low quality so it cannot be sent in a template message.");
  }
  if (template.status === "DISABLED") {
    throw new MetaError(
      132016,
      "Template has been paused too many times due to low quality and is now permanently disabled.",
    );
  }
  // Pending, rejected and other non-approved templates are reported as not existing, as Meta does.
  if (template.status !== "APPROVED") throw new MetaError(132001, notFound);
  checkEligible(template);

  const components = parseComponents(input.components);
  const find = (type: string): RequestComponent | undefined => components.find((c) => c.type === type);
  const bodyRequest = find("body");
  checkHeader(
    template,
    template.components.find((c) => c.type === "HEADER"),
    find("header"),
  );
  checkOtp(template, bodyRequest);
  checkBody(
    template,
    template.components.find((c) => c.type === "BODY"),
    bodyRequest,
  );
  checkButtons(
    template,
    template.components.find((c) => c.type === "BUTTONS")?.buttons ?? [],
    components.filter((c) => c.type === "button"),
  );
  checkCarousel(template, components);
  checkOrderStatus(template, components);
  return template;
}
