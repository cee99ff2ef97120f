import {
  CAMPAIGN_CSV_MAX_FIELD_LENGTH,
  CAMPAIGN_CSV_MAX_FIELDS,
  CAMPAIGN_CSV_MAX_VARIABLES,
  CAMPAIGN_CSV_NAMED_COLUMNS,
  CAMPAIGN_CSV_VARIABLE_COLUMN,
  CAMPAIGN_MAX_RECIPIENTS,
  CampaignRecipientIn,
  toValidationIssue,
  type ValidationIssue,
} from "@gw/contracts";
import { ApiError } from "@gw/errors";
import type { MetaTemplate } from "@gw/meta";
import { parseRecipient } from "../contacts/recipient.ts";
import { buildTemplateSend } from "../templates/build.ts";
import { templateShape } from "../templates/shape.ts";
import { CsvError, readCsv, type CsvRecord, type CsvSource } from "../csv/read.ts";

/** A row's template parameters as stored (campaign_recipients.parameters) and sent. */
export interface RecipientParameters {
  variables?: string[];
  header_text?: string;
  header_media?: { type: string; link: string; filename?: string };
  button_url_param?: string;
  button_url_index?: number;
  coupon_code?: string;
}

export interface AcceptedRecipient {
  row: number;
  /** As the send names it: a phone's digits with the country code, or a BSUID. */
  contact: string;
  parameters: RecipientParameters | null;
  clientRef: string | null;
}

export interface RejectedRow {
  row: number;
  to: string;
  /** A template pre-check code of the send, or invalid_recipient, duplicate_recipient, invalid_parameter... */
  code: string;
  message: string;
}

/** One row as given, before validation: parsed, or refused already (a CSV row that does not fit the schema). */
export type GivenRow = { row: number; input: CampaignRecipientIn } | { row: number; rejected: RejectedRow };

/** Why a recipients file is refused as a whole (the API's 422 `type`, the panel's notice). */
export type RecipientsFileProblem =
  "csv_invalid" | "csv_empty" | "csv_column_unknown" | "csv_column_duplicate" | "csv_column_missing" | "too_long";

/**
 * A recipients file refused as a whole: nothing was created. `message` is a Portuguese sentence for the person who
 * sent the file; each edge renders it its own way (the API as a 422 HTTPValidationError, the panel as a notice).
 */
export class RecipientsFileError extends Error {
  constructor(
    readonly problem: RecipientsFileProblem,
    message: string,
  ) {
    super(message);
    this.name = "RecipientsFileError";
  }
}

const csvFailure = (message: string, problem: RecipientsFileProblem) => new RecipientsFileError(problem, message);

const MAX_VARIABLES = CAMPAIGN_CSV_MAX_VARIABLES;
const COLUMNS: ReadonlySet<string> = new Set(CAMPAIGN_CSV_NAMED_COLUMNS);
const VARIABLE_COLUMN = CAMPAIGN_CSV_VARIABLE_COLUMN;

/** The header's column names (trimmed, lower case), refusing unknown, repeated or missing ones. */
function columnsOf(header: CsvRecord): string[] {
  const columns = header.fields.map((name) => name.trim().toLowerCase());
  for (const [index, name] of columns.entries()) {
    if (!COLUMNS.has(name) && !VARIABLE_COLUMN.test(name))
      throw csvFailure(
        `A coluna "${header.fields[index] ?? ""}" do CSV não é conhecida; use to, variable_1 a variable_${MAX_VARIABLES}, ${CAMPAIGN_CSV_NAMED_COLUMNS.slice(1, -1).join(", ")} ou ${CAMPAIGN_CSV_NAMED_COLUMNS.at(-1) ?? ""}.`,
        "csv_column_unknown",
      );
    if (columns.indexOf(name) !== index)
      throw csvFailure(`A coluna "${name}" aparece mais de uma vez no cabeçalho do CSV.`, "csv_column_duplicate");
  }
  if (!columns.includes("to"))
    throw csvFailure("O CSV precisa de uma coluna to com o número de cada destinatário.", "csv_column_missing");
  return columns;
}

/**
 * The repeated values of one upload (an amount, a date, a shop's name in every row) kept once. Until they are checked,
 * the rows of a 100,000-row file are all held at once, beside everything else the API holds, in its 128 MB heap: a row
 * as given is about 500 bytes, half of them its strings. Bounded: a file of unique values fills the pool and nothing
 * more is pooled.
 */
class ValuePool {
  private readonly kept = new Map<string, string>();
  constructor(private readonly max: number) {}

  of(value: string): string {
    const kept = this.kept.get(value);
    if (kept !== undefined) return kept;
    if (this.kept.size < this.max) this.kept.set(value, value);
    return value;
  }
}

const POOLED_VALUES = 4_096;

/** `candidate` without its absent members: a row's object then holds only what the row has. */
function presentOnly<T extends Record<string, unknown>>(candidate: T): Partial<T> {
  return Object.fromEntries(Object.entries(candidate).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** One data record as a row: its input, or its refusal when its values do not fit the schema. */
function givenRowOf(record: CsvRecord, columns: readonly string[], row: number, pool: ValuePool): GivenRow {
  const cell = (name: string): string | undefined => {
    const at = columns.indexOf(name);
    const value = at < 0 ? undefined : record.fields[at]?.trim();
    return value === "" ? undefined : value;
  };
  const to = cell("to") ?? "";
  if (record.fields.slice(columns.length).some((extra) => extra.trim() !== "")) {
    return {
      row,
      rejected: {
        row,
        to,
        code: "csv_extra_fields",
        message: `A linha ${record.line} do CSV tem mais campos que o cabeçalho; confira separadores e aspas.`,
      },
    };
  }
  const variables: string[] = [];
  for (let n = 1; n <= MAX_VARIABLES; n++) variables.push(cell(`variable_${n}`) ?? "");
  // Variables run up to the last one filled: a template with 2 variables needs no variable_3 column.
  while (variables.length > 0 && variables.at(-1) === "") variables.pop();
  const link = cell("header_media_link");
  const urlIndex = cell("button_url_index");
  const candidate = {
    to,
    variables: variables.length > 0 ? variables : undefined,
    header_text: cell("header_text"),
    header_media: link
      ? { link, type: cell("header_media_type")?.toLowerCase(), filename: cell("header_media_filename") }
      : undefined,
    button_url_param: cell("button_url_param"),
    button_url_index: urlIndex === undefined ? undefined : /^\d+$/.test(urlIndex) ? Number(urlIndex) : urlIndex,
    coupon_code: cell("coupon_code"),
    client_ref: cell("client_ref"),
  };
  const parsed = CampaignRecipientIn.safeParse(presentOnly(candidate), { reportInput: true });
  if (parsed.success) {
    const input = parsed.data;
    if (input.variables) input.variables = input.variables.map((value) => pool.of(value));
    if (typeof input.header_text === "string") input.header_text = pool.of(input.header_text);
    return { row, input };
  }
  const issue: ValidationIssue | undefined =
    parsed.error.issues[0] && toValidationIssue(parsed.error.issues[0], "body");
  const column = issue ? csvColumnOf(issue.loc.slice(1)) : "to";
  return {
    row,
    rejected: { row, to, code: "invalid_parameter", message: `Coluna ${column}: ${issue?.msg ?? "valor inválido."}` },
  };
}

/**
 * The rows of a CSV upload (see CAMPAIGN_CSV_COLUMNS in the contracts), read as the text arrives. Problems with the
 * file itself (unreadable, unknown or missing columns, no rows, too many) refuse the whole upload
 * (RecipientsFileError); the reading stops there, at the latest at row CAMPAIGN_MAX_RECIPIENTS + 1. A row whose
 * values do not fit is refused on its own. Cells are trimmed; empty cells are absent values.
 */
export async function rowsFromCsv(source: CsvSource): Promise<GivenRow[]> {
  const rows: GivenRow[] = [];
  const pool = new ValuePool(POOLED_VALUES);
  let columns: string[] | undefined;
  try {
    for await (const record of readCsv(source, {
      maxFields: CAMPAIGN_CSV_MAX_FIELDS,
      maxFieldLength: CAMPAIGN_CSV_MAX_FIELD_LENGTH,
    })) {
      if (!columns) {
        columns = columnsOf(record);
        continue;
      }
      if (rows.length === CAMPAIGN_MAX_RECIPIENTS)
        throw csvFailure(
          `O CSV tem mais de ${CAMPAIGN_MAX_RECIPIENTS} linhas de destinatários; o máximo por campanha é ${CAMPAIGN_MAX_RECIPIENTS}.`,
          "too_long",
        );
      rows.push(givenRowOf(record, columns, rows.length + 1, pool));
    }
  } catch (error) {
    if (error instanceof CsvError) throw csvFailure(`O CSV não pôde ser lido: ${error.message}`, "csv_invalid");
    throw error;
  }
  if (!columns)
    throw csvFailure("O CSV está vazio; a primeira linha deve ter os nomes das colunas (ao menos to).", "csv_empty");
  if (rows.length === 0) throw csvFailure("O CSV não tem nenhuma linha de destinatário.", "csv_empty");
  return rows;
}

/** The CSV column a schema path comes from (["header_media", "link"] -> header_media_link). */
function csvColumnOf(path: (string | number)[]): string {
  const [field, inner] = path;
  if (field === "variables" && typeof inner === "number") return `variable_${inner + 1}`;
  if (field === "header_media" && typeof inner === "string") return `header_media_${inner}`;
  return String(field ?? "to");
}

/** The rows of a JSON list (already validated by the request schema). */
export function rowsFromList(recipients: readonly CampaignRecipientIn[]): GivenRow[] {
  return recipients.map((input, index) => ({ row: index + 1, input }));
}

function parametersOf(input: CampaignRecipientIn, headerFormat: string | null): RecipientParameters | null {
  const parameters: RecipientParameters = {};
  // The row's own list: the row as given is dropped once checked, so nothing else holds it.
  if (input.variables && input.variables.length > 0) parameters.variables = input.variables;
  if (input.header_text) parameters.header_text = input.header_text;
  if (input.header_media) {
    // No type given: the template's own header format (the send API's default would be document).
    const type = input.header_media.type ?? headerFormat?.toLowerCase() ?? "document";
    parameters.header_media = {
      type,
      link: input.header_media.link,
      ...(input.header_media.filename ? { filename: input.header_media.filename } : {}),
    };
  }
  if (input.button_url_param) parameters.button_url_param = input.button_url_param;
  if (input.button_url_index !== undefined && input.button_url_index !== null)
    parameters.button_url_index = input.button_url_index;
  if (input.coupon_code) parameters.coupon_code = input.coupon_code;
  return Object.keys(parameters).length > 0 ? parameters : null;
}

// Validation is CPU work (libphonenumber, the template pre-checks): yield every so many rows, so that a 100 000-row
// upload does not hold the process's event loop for seconds.
const ROWS_PER_SLICE = 2_000;

/** The identifiers (a phone's digits, a BSUID) of the rows that name a valid recipient, to look their contacts up. */
export async function* recipientIdentifiers(rows: readonly GivenRow[]): AsyncGenerator<string, void, undefined> {
  for (const [index, given] of rows.entries()) {
    // libphonenumber is CPU work too: yield as validateRecipients does.
    if (index > 0 && index % ROWS_PER_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    if ("rejected" in given) continue;
    const recipient = parseRecipient(given.input.to);
    if (recipient.kind !== "invalid") yield recipient.identifier;
  }
}

/**
 * Every row checked before anything is sent, each on its own: the recipient (a phone as the send normalizes it, or a
 * BSUID), a person already named by an earlier row (by any of their identifiers: `contactKeys`, from
 * contacts/contactKeysOf), and the template's own pre-checks (variable count and format, header, buttons, a
 * phone-only template to a BSUID) exactly as a send of that row would run them.
 *
 * It consumes `rows` (the list is left empty): each slice of rows is released once checked, so a 100,000-row upload
 * never holds all its rows as given and all its recipients at once (the API runs on a 128 MB heap).
 */
export async function validateRecipients(
  rows: GivenRow[],
  template: MetaTemplate,
  contactKeys: ReadonlyMap<string, string> = new Map(),
): Promise<{ accepted: AcceptedRecipient[]; rejected: RejectedRow[] }> {
  const accepted: AcceptedRecipient[] = [];
  const rejected: RejectedRow[] = [];
  const firstRowOf = new Map<string, number>();
  const headerFormat = templateShape(template).header?.format ?? null;
  // The rows are taken from the end (pop is O(1)) and the slice checked in order, so rows stay in file order.
  const slices: GivenRow[][] = [];
  while (rows.length > 0) slices.push(rows.splice(Math.max(0, rows.length - ROWS_PER_SLICE)));
  for (let slice = slices.pop(); slice !== undefined; slice = slices.pop()) {
    await new Promise((resolve) => setImmediate(resolve));
    for (const given of slice) checkRow(given);
  }
  return { accepted, rejected };

  function checkRow(given: GivenRow): void {
    if ("rejected" in given) {
      rejected.push(given.rejected);
      return;
    }
    const { row, input } = given;
    const recipient = parseRecipient(input.to);
    if (recipient.kind === "invalid") {
      rejected.push({
        row,
        to: input.to,
        code: "invalid_recipient",
        message: `O número ${input.to} não é válido para envio.`,
      });
      return;
    }
    const { identifier } = recipient;
    const key = contactKeys.get(identifier) ?? identifier;
    const earlier = firstRowOf.get(key);
    if (earlier !== undefined) {
      rejected.push({
        row,
        to: input.to,
        code: "duplicate_recipient",
        message: `${recipient.kind === "phone" ? "O número" : "O destinatário"} ${identifier} já aparece na linha ${earlier}${key === identifier ? "" : " (por outro identificador da mesma pessoa)"}; cada destinatário recebe a campanha uma vez.`,
      });
      return;
    }
    firstRowOf.set(key, row);
    const parameters = parametersOf(input, headerFormat);
    try {
      buildTemplateSend({ ...parameters, to: identifier, language: template.language }, template);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      rejected.push({ row, to: input.to, code: error.code, message: error.message });
      return;
    }
    accepted.push({ row, contact: identifier, parameters, clientRef: input.client_ref ?? null });
  }
}
