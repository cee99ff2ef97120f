import type { Request } from "express";
import type { BusinessNumberQualityView } from "@gw/core/accounts";
import { campaignTemplateRefusal } from "@gw/core/campaigns";
import { decodeCsv, type CsvSource } from "@gw/core/csv";
import { z } from "@gw/config";
import { CAMPAIGN_CSV_MAX_BYTES } from "@gw/contracts";
import type { MetaTemplate } from "@gw/meta";
import { csrfField, table } from "../views/components.ts";
import { formatNumber } from "../views/format.ts";
import { html, type SafeHtml } from "../views/html.ts";
import { csvColumnsOf, csvFormatHelp } from "./campaigns-views.ts";
import { categoryText } from "./templates-preview.ts";

/** The "Nova campanha" form: its fields as posted (multipart, field `arquivo` for the file) and how it is shown. */

export const NAME_MAX_LENGTH = 120;

/** What the form posts, as typed (re-shown as is when the campaign could not be created). */
export interface CreateFormValues {
  nome?: string;
  template?: string;
  inicio?: string;
  destinatarios?: string;
}

const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

const fieldsSchema = z.object({
  nome: z.string().trim().min(1).max(NAME_MAX_LENGTH),
  numero: z.string().regex(/^\d{1,64}$/),
  // "name|language": one choice, so a name can never be paired with a language it does not have.
  template: z
    .string()
    .max(300)
    .regex(/^[^|]+\|[^|]+$/),
  inicio: z.string().regex(LOCAL_DATE_TIME).optional(),
});

const FIELD_MESSAGES: Record<string, string> = {
  nome: `Dê um nome à campanha (até ${NAME_MAX_LENGTH} caracteres).`,
  numero: "Escolha o número que envia a campanha.",
  template: "Escolha um dos templates aprovados do número.",
  inicio: "O início agendado não é uma data e hora válidas.",
};

/**
 * A `datetime-local` value read as São Paulo time, as the staff type it. Brazil has had no daylight saving time since
 * 2019, so the offset is fixed.
 */
function saoPauloTime(value: string): Date | null {
  const date = new Date(`${value.length === 16 ? `${value}:00` : value}-03:00`);
  return Number.isNaN(date.getTime()) ? null : date;
}

export type ParsedCreateForm =
  | {
      ok: true;
      name: string;
      phoneNumberId: string;
      template: string;
      language: string;
      startAt: Date | null;
      /** The file's text as core reads it, piece by piece (an upload: UTF-8, or Windows-1252 as Excel saves it). */
      csv: CsvSource;
    }
  | { ok: false; error: string };

/** The posted form (fields from multer or urlencoded, the file from multer) checked before the service is called. */
export function parseCreateForm(req: Request, now = new Date()): ParsedCreateForm {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const text = (name: string) => {
    const value = body[name];
    return typeof value === "string" && value.trim() !== "" ? value : undefined;
  };
  const parsed = fieldsSchema.safeParse({
    nome: text("nome") ?? "",
    numero: text("numero") ?? "",
    template: text("template") ?? "",
    inicio: text("inicio"),
  });
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? "nome");
    return { ok: false, error: FIELD_MESSAGES[field] ?? "Confira os campos do formulário." };
  }
  const startAt = parsed.data.inicio === undefined ? null : saoPauloTime(parsed.data.inicio);
  if (parsed.data.inicio !== undefined && startAt === null) return { ok: false, error: FIELD_MESSAGES.inicio ?? "" };
  if (startAt !== null && startAt.getTime() <= now.getTime())
    return {
      ok: false,
      error: "O início agendado já passou; deixe-o vazio para a campanha começar assim que for iniciada.",
    };

  // A browser sends an empty file part when no file was chosen.
  const file = req.file && req.file.size > 0 ? req.file : undefined;
  const pasted = text("destinatarios");
  if (file && pasted) return { ok: false, error: "Envie o arquivo CSV ou cole os destinatários, não os dois." };
  if (!file && !pasted) return { ok: false, error: "Envie um arquivo CSV ou cole os destinatários no campo de texto." };
  const [template = "", language = ""] = parsed.data.template.split("|");
  return {
    ok: true,
    name: parsed.data.nome,
    phoneNumberId: parsed.data.numero,
    template,
    language,
    startAt,
    csv: file ? decodeCsv(file.buffer, "auto") : (pasted ?? ""),
  };
}

/** Templates a campaign can send (core's rule: campaignTemplateRefusal), by name and language. */
export function campaignTemplates(templates: readonly MetaTemplate[]): MetaTemplate[] {
  return templates
    .filter((template) => campaignTemplateRefusal(template) === null)
    .sort((a, b) => (a.name === b.name ? a.language.localeCompare(b.language) : a.name.localeCompare(b.name)));
}

export const templateValue = (template: MetaTemplate) => `${template.name}|${template.language}`;

function numberText(number: BusinessNumberQualityView): string {
  return `${number.display_number} (${formatNumber(number.messaging_rate_per_second)} msg/s)`;
}

/** The number chooser (a GET form: the template list depends on the number's WABA), when there is a choice. */
function numberChooser(numbers: readonly BusinessNumberQualityView[], selected: BusinessNumberQualityView): SafeHtml {
  if (numbers.length < 2) return html`<p>Número que envia: <strong>${numberText(selected)}</strong></p>`;
  return html`<form method="get" action="/campanhas/nova" class="filters">
    <label
      >Número que envia
      <select name="numero">
        ${numbers.map(
          (number) =>
            html`<option value="${number.phone_number_id}" ${number === selected ? "selected" : ""}>
              ${numberText(number)}
            </option>`,
        )}
      </select></label
    >
    <button type="submit" class="secondary">Usar este número</button>
  </form>`;
}

export function createFormBody(
  req: Request,
  options: {
    numbers: readonly BusinessNumberQualityView[];
    selected: BusinessNumberQualityView | null;
    templates: readonly MetaTemplate[];
    problem: string | null;
    values: CreateFormValues;
  },
): SafeHtml {
  const { selected, templates, values } = options;
  const intro = html`<p><a href="/campanhas">← Campanhas</a></p>
    <p class="hint">
      A campanha é criada como rascunho: cada linha é conferida antes de qualquer envio, e você vê quantas foram aceitas
      e o motivo de cada recusa antes de iniciar. Os envios seguem a taxa do número.
    </p>`;
  if (!selected || options.problem)
    return html`${intro}
      <p class="notice error" role="alert">
        ${options.problem ?? "A conta ainda não tem um número comercial; o operador da plataforma precisa cadastrá-lo."}
      </p>`;
  if (templates.length === 0)
    return html`${intro} ${numberChooser(options.numbers, selected)}
      <p class="empty">
        Nenhum template aprovado deste número pode ser enviado em campanha. Veja o catálogo em
        <a href="/templates?numero=${selected.phone_number_id}">Templates</a>.
      </p>`;
  return html`${intro} ${numberChooser(options.numbers, selected)}
    <form method="post" action="/campanhas" enctype="multipart/form-data" class="stack">
      ${csrfField(req)}
      <input type="hidden" name="numero" value="${selected.phone_number_id}" />
      <label
        >Nome da campanha
        <input name="nome" required maxlength="${NAME_MAX_LENGTH}" autocomplete="off" value="${values.nome ?? ""}" />
      </label>
      <label
        >Template
        <select name="template" required>
          ${templates.map(
            (template) =>
              html`<option
                value="${templateValue(template)}"
                ${values.template === templateValue(template) ? "selected" : ""}
              >
                ${template.name} (${template.language}) · ${categoryText(template.category)}
              </option>`,
          )}
        </select>
      </label>
      <label
        >Início agendado (horário de São Paulo, opcional)
        <input type="datetime-local" name="inicio" value="${values.inicio ?? ""}" aria-describedby="inicio-ajuda" />
        <span class="hint" id="inicio-ajuda">Vazio: os envios começam quando você iniciar a campanha.</span>
      </label>
      <label
        >Arquivo CSV de destinatários
        <input type="file" name="arquivo" accept=".csv,.txt,text/csv,text/plain" aria-describedby="arquivo-ajuda" />
        <span class="hint" id="arquivo-ajuda">Até ${CAMPAIGN_CSV_MAX_BYTES / (1024 * 1024)} MB e 100.000 linhas.</span>
      </label>
      <label
        >Ou cole o CSV aqui
        <textarea name="destinatarios" rows="8" spellcheck="false" aria-describedby="colar-ajuda">
${values.destinatarios ?? ""}</textarea>
        <span class="hint" id="colar-ajuda">Para listas pequenas (até 64 KB); use um só dos dois campos.</span>
      </label>
      <button type="submit">Criar campanha</button>
    </form>
    ${csvFormatHelp()}
    <h2>Colunas que cada template pede</h2>
    ${table({
      caption: "Templates aprovados do número que podem ser enviados em campanha",
      headers: ["Template", "Categoria", "Colunas do CSV"],
      rows: templates.map((template) => [
        html`<code>${template.name}</code> <span class="hint">(${template.language})</span>`,
        categoryText(template.category),
        csvColumnsOf(template),
      ]),
      empty: "",
    })}
    <p class="hint">
      <code>client_ref</code> é opcional em todos. Templates de marketing não são enviados a quem pediu para não receber
      marketing (código <code>recipient_opted_out</code> no resultado do destinatário).
    </p>`;
}
