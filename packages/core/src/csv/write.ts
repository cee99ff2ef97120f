/**
 * CSV the gateway writes (RFC 4180: comma, CRLF), safe to open in a spreadsheet. Every text cell is quoted, so a `;`
 * or a tab inside it never splits it where Excel in Brazilian Portuguese (`;`) would; a text cell a spreadsheet would
 * run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return: OWASP's CSV injection rule) gets a
 * leading apostrophe. Numbers and empty values are written bare.
 */

export type CsvValue = string | number | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return `"${text.replaceAll('"', '""')}"`;
}

/** One CSV line (CRLF-terminated, as RFC 4180 says). */
export function csvLine(values: readonly CsvValue[]): string {
  return `${values.map(csvCell).join(",")}\r\n`;
}
