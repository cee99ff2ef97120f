import {
  isOrderStatusTemplate,
  templateShape,
  toCatalogueItem,
  type ButtonShape,
  type TemplateShape,
} from "@gw/core/templates";
import type { MetaTemplate, MetaTemplateButton, MetaTemplateComponent } from "@gw/meta";
import { badge } from "../views/components.ts";
import { formatNumber } from "../views/format.ts";
import { QUALITY_LABELS, TEMPLATE_CATEGORY_LABELS, TEMPLATE_STATUS_LABELS } from "../views/glossary.ts";
import { html, type SafeHtml } from "../views/html.ts";

/**
 * One template of the catalogue as the panel shows it: a rendered preview (header, body with its variables
 * highlighted, footer, buttons), what a send of it needs, and an example body for POST /public/v1/messages. What a
 * send needs is read from core's `templateShape` / `toCatalogueItem`, the same code the public API's catalogue and
 * send pre-checks use, so the page never disagrees with the API.
 */

const MEDIA_PLACEHOLDERS: Record<string, string> = {
  IMAGE: "imagem",
  VIDEO: "vídeo",
  DOCUMENT: "documento",
  GIF: "GIF",
  LOCATION: "localização",
  PRODUCT: "produto",
};

export function statusBadge(status: string): SafeHtml {
  const label = TEMPLATE_STATUS_LABELS[status];
  return label ? badge(label.text, label.tone) : badge(status);
}

export function qualityBadge(score: string | null | undefined): SafeHtml {
  const label = QUALITY_LABELS[score ?? "UNKNOWN"] ?? { text: score ?? "desconhecida", tone: "neutral" as const };
  return badge(`qualidade ${label.text}`, label.tone);
}

const VARIABLE = /(\{\{\s*[A-Za-z0-9_]+\s*\}\})/;

/** A template text with its `{{1}}` / `{{name}}` placeholders marked, and its line breaks kept. */
export function highlighted(text: string): SafeHtml {
  const lines = text.split(/\r?\n/);
  return html`${lines.map(
    (line, i) =>
      html`${i > 0 ? html`<br />` : ""}${line
        .split(VARIABLE)
        .map((part, j) => (j % 2 === 1 ? html`<mark>${part}</mark>` : part))}`,
  )}`;
}

function buttonLabel(button: ButtonShape): string {
  const text = button.text ?? "";
  switch (button.type) {
    case "URL":
      return button.needsOtp ? `${text} (copiar código)` : `${text} ↗`;
    case "PHONE_NUMBER":
      return `${text} ☎`;
    case "COPY_CODE":
      return `${text} (copiar código)`;
    case "ORDER_DETAILS":
      return `${text} (pedido Pix)`;
    default:
      return text || button.type;
  }
}

function buttonDetail(button: ButtonShape): SafeHtml | string {
  if (button.type === "URL" && button.url && !button.needsOtp)
    return html`<br /><small>${highlighted(button.url)}</small>`;
  if (button.type === "PHONE_NUMBER" && button.phoneNumber) return html`<br /><small>${button.phoneNumber}</small>`;
  return "";
}

/** The message as the contact would see it, placeholders marked; media headers are a labelled placeholder. */
export function templatePreview(template: MetaTemplate, shape: TemplateShape = templateShape(template)): SafeHtml {
  const header = shape.header;
  const others = template.components
    .map((c) => c.type.toUpperCase())
    .filter((type) => !["HEADER", "BODY", "FOOTER", "BUTTONS"].includes(type));
  return html`<div class="template-preview" role="group" aria-label="Prévia do template ${template.name}">
    ${
      header
        ? html`<p class="header">
            ${
              header.format === "TEXT"
                ? highlighted(header.text ?? "")
                : html`<span class="badge">[${MEDIA_PLACEHOLDERS[header.format] ?? header.format.toLowerCase()}]</span>`
            }
          </p>`
        : ""
    }
    <p class="body">${highlighted(shape.body.text)}</p>
    ${shape.footer?.text ? html`<p class="footer">${shape.footer.text}</p>` : ""}
    ${
      shape.buttons.length > 0
        ? html`<div class="buttons">
            ${shape.buttons.map((button) => html`<span>${buttonLabel(button)}${buttonDetail(button)}</span>`)}
          </div>`
        : ""
    }
    ${others.length > 0 ? html`<p class="hint">Também tem: ${others.join(", ")} (não mostrado na prévia).</p>` : ""}
  </div>`;
}

function plural(n: number, one: string, many: string): string {
  return `${formatNumber(n)} ${n === 1 ? one : many}`;
}

/** One line per field of the send request (spec 2.1) this template needs filled. */
export function sendNeeds(template: MetaTemplate, shape: TemplateShape = templateShape(template)): SafeHtml[] {
  const needs: SafeHtml[] = [];
  const item = toCatalogueItem(template);
  if (shape.isAuthentication) {
    needs.push(
      html`<li>
        <code>otp_code</code>: o código de verificação (até 15 caracteres, sem espaços). Ele preenche o corpo e o botão
        de copiar; <code>variables</code> fica vazio.
      </li>`,
    );
  } else if (item.body.variables_count > 0) {
    const tokens = shape.body.variables.map((v) => `{{${v}}}`).join(", ");
    needs.push(
      shape.parameterFormat === "NAMED"
        ? html`<li>
            <code>variables</code>: ${plural(item.body.variables_count, "valor", "valores")}, e
            <code>variable_names</code> com os nomes na mesma ordem: ${item.body.variable_names.join(", ")} (sem
            <code>variable_names</code>, os valores seguem a ordem em que aparecem: ${tokens}).
          </li>`
        : html`<li>
            <code>variables</code>: ${plural(item.body.variables_count, "valor", "valores")}, na ordem ${tokens}.
          </li>`,
    );
  }
  if (item.header?.needs_text) {
    needs.push(
      html`<li>
        <code>header_text</code>: o texto de ${highlighted(`{{${shape.header?.variables[0] ?? "1"}}}`)} no cabeçalho
        (até 60 caracteres).
      </li>`,
    );
  }
  if (item.header?.needs_media) {
    const type = item.header.format.toLowerCase();
    needs.push(
      html`<li>
        <code>header_media</code>: <code>{"type": "${type}", "link": "https://…"}</code>, um link público do arquivo
        (${MEDIA_PLACEHOLDERS[item.header.format] ?? type}) que o provedor baixa sem login.
      </li>`,
    );
  }
  for (const button of shape.buttons) {
    if (button.needsUrlParam)
      needs.push(
        html`<li>
          <code>button_url_param</code>: o final da URL do botão “${button.text ?? "URL"}”
          (${highlighted(button.url ?? "")}); <code>button_url_index</code> ${button.index}.
        </li>`,
      );
    if (button.needsCoupon)
      needs.push(
        html`<li>
          <code>coupon_code</code>: o código do botão “${button.text ?? "copiar código"}” (letras e números, até 15).
        </li>`,
      );
    if (button.isOrderDetails)
      needs.push(html`<li><code>pix_order</code>: o pedido Pix (código, chave, itens e valores em centavos).</li>`);
  }
  if (needs.length === 0)
    needs.push(html`<li>Nenhuma variável: basta <code>template</code> e <code>language</code>.</li>`);
  return needs;
}

function component(template: MetaTemplate, type: string): MetaTemplateComponent | undefined {
  return template.components.find((c) => c.type.toUpperCase() === type);
}

/** Meta refuses parameters with line breaks, tabs or long runs of spaces: examples are kept to one plain line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function exampleOf(value: string | undefined, fallback: string): string {
  const text = value === undefined ? "" : oneLine(value);
  return text === "" ? fallback : text;
}

function bodyExamples(template: MetaTemplate, shape: TemplateShape): string[] {
  const example = component(template, "BODY")?.example;
  if (shape.parameterFormat === "NAMED") {
    const named = new Map((example?.body_text_named_params ?? []).map((p) => [p.param_name, p.example]));
    return shape.body.variables.map((name) => exampleOf(named.get(name), `valor de ${name}`));
  }
  const positional = example?.body_text?.[0] ?? [];
  return shape.body.variables.map((_, i) => exampleOf(positional[i], `valor ${i + 1}`));
}

function headerTextExample(template: MetaTemplate): string {
  const example = component(template, "HEADER")?.example;
  return exampleOf(example?.header_text?.[0] ?? example?.header_text_named_params?.[0]?.example, "texto");
}

function buttonExample(template: MetaTemplate, index: number): string | undefined {
  const button: MetaTemplateButton | undefined = component(template, "BUTTONS")?.buttons?.[index];
  const example = button?.example;
  return Array.isArray(example) ? example[0] : example;
}

/** The part of the button's example URL that fills its variable (Meta's example is the whole URL). */
function urlParamExample(template: MetaTemplate, button: ButtonShape): string {
  const full = buttonExample(template, button.index);
  const url = button.url ?? "";
  const start = url.search(/\{\{/);
  const tail = url.replace(/^.*\}\}/, "");
  if (full && start >= 0 && full.startsWith(url.slice(0, start)) && full.endsWith(tail)) {
    const param = full.slice(start, full.length - tail.length);
    if (param !== "") return param;
  }
  return "ABC123";
}

function couponExample(template: MetaTemplate, button: ButtonShape): string {
  const example = buttonExample(template, button.index);
  return example && /^[A-Za-z0-9]{1,15}$/.test(example) ? example : "PROMO10";
}

const EXAMPLE_PIX_ORDER = {
  reference_id: "pedido-12345",
  pix_code: "00020101021226880014br.gov.bcb.pix2566qrcodes.exemplo.com.br/v2/cobv/9d36b84f5204000053039865802BR",
  merchant_name: "Loja Exemplo",
  key: "12345678000195",
  key_type: "CNPJ",
  items: [{ name: "Produto exemplo", amount: 1990, quantity: 1 }],
};

/** Where the example goes: an order-status template only carries an order's status (issue 37). */
export function exampleSendPath(template: MetaTemplate): string {
  return isOrderStatusTemplate(template) ? "/public/v1/orders/{reference_id}/status" : "/public/v1/messages";
}

/**
 * An example body for POST /public/v1/messages that sends this template (for an order-status template, the body of
 * POST /public/v1/orders/{reference_id}/status), filled with Meta's own examples where the template has them; null
 * when the public API cannot fill the template at all.
 */
export function exampleSendBody(
  template: MetaTemplate,
  shape: TemplateShape = templateShape(template),
): Record<string, unknown> | null {
  if (shape.unsupportedReason !== null) return null;
  if (isOrderStatusTemplate(template)) {
    const variables = shape.body.variables.length > 0 ? { variables: bodyExamples(template, shape) } : {};
    return { order_status: "shipped", template: { name: template.name, language: template.language, ...variables } };
  }
  const body: Record<string, unknown> = { to: "5511999999999", template: template.name, language: template.language };
  if (shape.isAuthentication) body.otp_code = exampleOf(bodyExamples(template, shape)[0], "123456").replace(/\s/g, "");
  else if (shape.body.variables.length > 0) {
    body.variables = bodyExamples(template, shape);
    if (shape.parameterFormat === "NAMED") body.variable_names = shape.body.variables;
  }
  if (shape.header?.needsMedia) {
    const type = shape.header.format.toLowerCase();
    const extension = { image: "jpg", video: "mp4", document: "pdf" }[type] ?? "bin";
    body.header_media = {
      type,
      link: `https://www.exemplo.com.br/arquivos/exemplo.${extension}`,
      ...(type === "document" ? { filename: "exemplo.pdf" } : {}),
    };
  } else if (shape.header && shape.header.variables.length > 0) body.header_text = headerTextExample(template);
  for (const button of shape.buttons) {
    if (button.needsUrlParam) {
      body.button_url_param = urlParamExample(template, button);
      body.button_url_index = button.index;
    }
    if (button.needsCoupon) {
      body.coupon_code = couponExample(template, button);
      body.coupon_index = button.index;
    }
    if (button.isOrderDetails) body.pix_order = EXAMPLE_PIX_ORDER;
  }
  return body;
}

export function categoryText(category: string): string {
  return TEMPLATE_CATEGORY_LABELS[category.toUpperCase()] ?? category.toLowerCase();
}
