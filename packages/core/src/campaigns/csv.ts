/**
 * CSV as RFC 4180 writes it, read and written by hand behind these two functions (no CSV library is installed; one
 * could replace them without touching their callers). Reading also takes what spreadsheets produce: a UTF-8 BOM,
 * LF or CRLF line ends, and `;` or tab as the separator (Excel in Brazilian Portuguese saves with `;`), told from
 * the header line.
 */

import { UNSTORABLE_CHARACTER, unstorableTextReason } from "@gw/contracts";

export class CsvError extends Error {
  constructor(
    message: string,
    /** 1-based line of the file where the problem is. */
    readonly line: number,
  ) {
    super(message);
    this.name = "CsvError";
  }
}

export interface CsvRecord {
  /** 1-based line of the file where the record starts. */
  line: number;
  fields: string[];
}

/** The separator the header line uses most: `,`, `;` or a tab (outside quotes). */
function detectSeparator(text: string): string {
  const counts = new Map([
    [",", 0],
    [";", 0],
    ["\t", 0],
  ]);
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === "\n" || char === "\r")) break;
    else if (!quoted && counts.has(char)) counts.set(char, (counts.get(char) ?? 0) + 1);
  }
  let best = ",";
  for (const [separator, count] of counts) if (count > (counts.get(best) ?? 0)) best = separator;
  return best;
}

/** Every record of `text`, empty lines left out. Throws CsvError for a quote that is never closed or misplaced. */
export function parseCsv(input: string): CsvRecord[] {
  const text = input.startsWith("\uFEFF") ? input.slice(1) : input;
  // PostgreSQL cannot store U+0000 or a lone surrogate: refuse the file with the line, before any row is read.
  const unstorable = unstorableTextReason(text);
  if (unstorable !== undefined) {
    const at = text.search(UNSTORABLE_CHARACTER);
    throw new CsvError(unstorable, text.slice(0, Math.max(at, 0)).split("\n").length);
  }
  const separator = detectSeparator(text);
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = "";
  let line = 1;
  let recordLine = 1;
  let i = 0;
  const endRecord = () => {
    fields.push(field);
    // A line with nothing on it is no record (spreadsheets leave trailing blank lines).
    if (!(fields.length === 1 && fields[0] === "")) records.push({ line: recordLine, fields });
    fields = [];
    field = "";
  };
  while (i < text.length) {
    const char = text[i];
    if (char === '"' && field === "") {
      // A quoted field: up to the closing quote, with "" standing for one quote and line breaks kept.
      const opened = line;
      i++;
      for (;;) {
        if (i >= text.length) throw new CsvError(`As aspas abertas na linha ${opened} nunca são fechadas.`, opened);
        const c = text[i];
        if (c === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (c === "\n") line++;
        field += c;
        i++;
      }
      const next = text[i];
      if (next !== undefined && next !== separator && next !== "\n" && next !== "\r") {
        throw new CsvError(
          `Na linha ${line}, um campo entre aspas continua depois de fechar as aspas; use "" para aspas dentro do campo.`,
          line,
        );
      }
      continue;
    }
    if (char === separator) {
      fields.push(field);
      field = "";
      i++;
      continue;
    }
    if (char === "\r" || char === "\n") {
      endRecord();
      i += char === "\r" && text[i + 1] === "\n" ? 2 : 1;
      line++;
      recordLine = line;
      continue;
    }
    field += char;
    i++;
  }
  if (field !== "" || fields.length > 0) endRecord();
  return records;
}

// A cell a spreadsheet would run as a formula (CSV injection): written with a leading apostrophe.
const FORMULA_START = /^[=+\-@\t\r]/;

function csvField(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV line (CRLF-terminated, as RFC 4180 says). */
export function csvLine(values: readonly (string | number | null)[]): string {
  return `${values.map(csvField).join(",")}\r\n`;
}
