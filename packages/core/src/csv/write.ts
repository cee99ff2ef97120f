/**
 * CSV the gateway writes, safe to open in a spreadsheet however it splits the line.
 *
 * Every text cell is quoted (RFC 4180), numbers are bare. Quoting alone is not enough: Excel in Brazilian
 * Portuguese opening a `.csv` splits on `;` and honours a quote only at the start of a cell, so the `;` inside
 * `"x;=cmd|' /C calc'!A0;"` starts a cell `=cmd…`. So the rule is about the text itself: wherever a cell could start
 * — at the start of the value and after each `,`, `;`, tab, CR or LF in it — if what follows, past any quotes and
 * whitespace (other than tab and CR), is `=`, `+`, `-`, `@`, a tab or a CR (OWASP's formula starts), an apostrophe
 * is put there; the last value of a line also counts its end there (see `defuse`). Split on `,`, `;` or tab, with
 * quotes honoured or not, with line breaks inside a value or not, no piece then starts with a formula
 * (`csv.formulas-split-anywhere.test.ts` checks it). A negative number is written as such a text. Values read back
 * as written, apostrophes included.
 */

export type CsvValue = string | number | null | undefined;

/** How a file's lines are joined: the API's files are RFC 4180 (comma); the panel's open in columns in Excel pt-BR. */
export interface CsvDialect {
  separator: "," | ";";
  /** A UTF-8 byte order mark before the header, so Excel reads UTF-8 (accents) rather than Windows-1252. */
  bom: boolean;
}

/** The API's exports: RFC 4180 (comma, CRLF, no BOM), what a program reading the file expects. */
export const RFC_CSV: CsvDialect = { separator: ",", bom: false };

/** The panel's downloads: `;` and a UTF-8 BOM, what Excel in Brazilian Portuguese opens in columns with accents. */
export const SPREADSHEET_CSV: CsvDialect = { separator: ";", bom: true };

/** A spreadsheet runs a cell starting with one of these as a formula (OWASP's CSV injection list). */
const FORMULA_START = new Set(["=", "+", "-", "@", "\t", "\r"]);
const HAS_FORMULA_START = /[=+\-@\t\r]/;
/** Where a cell may start inside a value: after a separator a spreadsheet could split on, or a line break. */
const CELL_BREAK = new Set([",", ";", "\t", "\r", "\n"]);
const HAS_CELL_BREAK = /[,;\t\r\n]/;
/** Skipped before a cell's first character by some reader: its quotes, and whitespace it may trim. */
const SKIPPED = /^[\s"]$/;

/**
 * The value with an apostrophe wherever a cell that a spreadsheet could cut out of it would start a formula. A value
 * that ends its line ends, past its closing quote, with the line's CRLF: a cut after a break at its end (`"…;"`)
 * starts with that quote, which a reader may take for an opening one and carry the CR into the cell (a formula start).
 */
function defuse(text: string, endsLine: boolean): string {
  if (!HAS_FORMULA_START.test(text) && !(endsLine && HAS_CELL_BREAK.test(text))) return text;
  // ahead[i]: from i, past quotes and whitespace other than tab and CR (both formula starts), a formula start comes
  // first (or the value's end, when it ends the line). Computed from the end, so the value is read twice at most.
  const ahead = new Array<boolean>(text.length + 1).fill(false);
  ahead[text.length] = endsLine;
  for (let i = text.length - 1; i >= 0; i--) {
    const char = text.charAt(i);
    ahead[i] = FORMULA_START.has(char) || (SKIPPED.test(char) && ahead[i + 1] === true);
  }
  let out = "";
  for (let i = 0; i <= text.length; i++) {
    const cellStart = i === 0 || CELL_BREAK.has(text.charAt(i - 1));
    // The value's own start is followed by its opening quote, never by the CR: only a formula start counts there.
    const formula = i === 0 ? FORMULA_START.has(firstActed(text)) : ahead[i] === true;
    if (cellStart && formula) out += "'";
    out += text.charAt(i);
  }
  return out;
}

/** The value's first character a reader acts on: past its quotes and whitespace other than tab and CR. */
function firstActed(text: string): string {
  for (const char of text) if (FORMULA_START.has(char) || !SKIPPED.test(char)) return char;
  return "";
}

/** One cell; `endsLine` when it is the line's last. */
export function csvCell(value: CsvValue, endsLine = false): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return "";
    if (value >= 0) return String(value);
  }
  return `"${defuse(String(value), endsLine).replaceAll('"', '""')}"`;
}

/** One CSV line (CRLF-terminated, as RFC 4180 says). */
export function csvLine(values: readonly CsvValue[], dialect: CsvDialect = RFC_CSV): string {
  return `${values.map((value, i) => csvCell(value, i === values.length - 1)).join(dialect.separator)}\r\n`;
}

/** A file's first line: its header, after the byte order mark when the dialect has one. */
export function csvHeader(columns: readonly string[], dialect: CsvDialect): string {
  return `${dialect.bom ? "\uFEFF" : ""}${csvLine(columns, dialect)}`;
}
