import { describe, expect, it } from "@jest/globals";
import { parse } from "csv-parse/sync";
import fc from "fast-check";
import { RFC_CSV, SPREADSHEET_CSV, csvHeader, csvLine, type CsvDialect, type CsvValue } from "../src/csv/index.ts";

// Every CSV the gateway writes (the API's exports with `,`, the panel's downloads with `;` and a BOM) is opened by
// spreadsheets that split it their own way: on `,`, on `;` (Excel pt-BR) or on tab, honouring quotes only at a
// cell's start, anywhere, or not at all, breaking lines inside a quoted value or not. However the line is cut, no
// piece may start a formula (`=`, `+`, `-`, `@`, tab, CR), also past a leading quote or blank: a piece `"=…` is run
// by some readers.

const FORMULA_START = new Set(["=", "+", "-", "@", "\t", "\r"]);

/** The piece's first character a reader could act on: past the quotes and the blanks it may drop (not tab or CR). */
function firstActed(piece: string): string | undefined {
  for (const char of piece) {
    if (FORMULA_START.has(char)) return char;
    if (!/[\s"]/.test(char)) return char;
  }
  return undefined;
}

const withoutBom = (text: string) => (text.startsWith("\uFEFF") ? text.slice(1) : text);

/** Cut on the separator (and line breaks, if asked), every quote ignored. */
function cutIgnoringQuotes(text: string, separator: string, lineBreaks: boolean): string[] {
  const lines = lineBreaks ? text.split(/\r\n|\r|\n/) : [text];
  return lines.flatMap((line) => line.split(separator));
}

/**
 * The cells a quote-honouring reader makes: a quote opens a quoted run at a cell's very start (`start`), past its
 * blanks (`past-blanks`) or anywhere (`anywhere`); inside it `""` is a quote and a lone `"` closes it; outside it the
 * separator and line breaks end the cell.
 */
function cellsHonouringQuotes(text: string, separator: string, opens: "start" | "past-blanks" | "anywhere"): string[] {
  const cells: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (quoted) {
      if (char !== '"') cell += char;
      else if (text.charAt(i + 1) === '"') {
        cell += '"';
        i++;
      } else quoted = false;
    } else if (char === separator || char === "\r" || char === "\n") {
      cells.push(cell);
      cell = "";
    } else if (char === '"' && (opens === "anywhere" || (opens === "start" ? cell === "" : cell.trim() === "")))
      quoted = true;
    else cell += char;
  }
  cells.push(cell);
  return cells;
}

/**
 * Every way of cutting a file (its lines as written, each ending in CRLF) a spreadsheet may use. Cut without line
 * breaks, each line is cut without its CRLF, as a reader that splits records first does.
 */
function everyCut(lines: readonly string[]): { how: string; pieces: string[] }[] {
  const records = lines.map((line, i) => (i === 0 ? withoutBom(line) : line).replace(/\r\n$/, ""));
  const text = withoutBom(lines.join(""));
  // `;` is Excel pt-BR's separator, `,` Excel en-US's, tab the text import's default.
  return [",", ";", "\t"].flatMap((separator) => [
    { how: `${separator} ignoring quotes`, pieces: records.flatMap((r) => cutIgnoringQuotes(r, separator, false)) },
    { how: `${separator} ignoring quotes, lines broken`, pieces: cutIgnoringQuotes(text, separator, true) },
    { how: `${separator} quotes at a cell's start`, pieces: cellsHonouringQuotes(text, separator, "start") },
    { how: `${separator} quotes past blanks`, pieces: cellsHonouringQuotes(text, separator, "past-blanks") },
    { how: `${separator} quotes anywhere`, pieces: cellsHonouringQuotes(text, separator, "anywhere") },
  ]);
}

/** The pieces that start a formula, with how the file was cut. */
function formulas(lines: readonly string[]): string[] {
  return everyCut(lines).flatMap(({ how, pieces }) =>
    pieces.filter((piece) => FORMULA_START.has(firstActed(piece) ?? "")).map((piece) => `${how}: ${piece}`),
  );
}

/** Values built from what attacks a cut (separators, quotes, blanks, formula starts) and anything else. */
const hostileText = fc.oneof(
  fc.string({
    unit: fc.constantFrom(
      "=",
      "+",
      "-",
      "@",
      "\t",
      "\r",
      "\n",
      "\r\n",
      ",",
      ";",
      '"',
      " ",
      "\u00a0",
      "'",
      "a",
      "1",
      "|",
    ),
    maxLength: 24,
  }),
  fc.string({ unit: "grapheme", maxLength: 24 }),
  fc.constantFrom("x;=cmd|' /C calc'!A0;", 'a,"=1+1', '";=HYPERLINK("http://x")', "ok; -1", "\n@SUM(1)"),
);
const value: fc.Arbitrary<CsvValue> = fc.oneof(
  { weight: 6, arbitrary: hostileText },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined) },
);
const rows = fc.array(fc.array(value, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 6 });
const dialects: [string, CsvDialect][] = [
  ["the API's (`,`)", RFC_CSV],
  ["the panel's (`;`, BOM)", SPREADSHEET_CSV],
];

/** The lines of a file with a header and `rows`, as written. */
const linesOf = (rows: readonly (readonly CsvValue[])[], dialect: CsvDialect) => [
  csvHeader(["a", "b"], dialect),
  ...rows.map((row) => csvLine(row, dialect)),
];

describe("a CSV the gateway writes starts no formula wherever a spreadsheet cuts it", () => {
  it("the campaign export's client_ref `x;=cmd|' /C calc'!A0;` starts no cell when Excel pt-BR splits on `;`", () => {
    const line = csvLine([1, "5511987650001", "x;=cmd|' /C calc'!A0;", "queued"]);
    expect(line).toBe(`1,"5511987650001","x;'=cmd|' /C calc'!A0;","queued"\r\n`);
    expect(formulas([line])).toEqual([]);
  });

  it.each(dialects)(
    "%s: no piece starts a formula, cut on `,`, `;` or tab, quotes honoured or not",
    (_name, dialect) => {
      fc.assert(
        fc.property(rows, (lines) => {
          expect(formulas(linesOf(lines, dialect))).toEqual([]);
        }),
        { numRuns: 5_000 },
      );
    },
  );

  it.each(dialects)(
    "%s: read with its own separator, each value comes back with apostrophes added only",
    (_name, dialect) => {
      fc.assert(
        fc.property(rows, (lines) => {
          const file = linesOf(lines, dialect).join("");
          expect(file.startsWith("\uFEFF")).toBe(dialect.bom);
          const read: string[][] = parse(withoutBom(file), { delimiter: dialect.separator, relax_column_count: true });
          expect(read[0]).toEqual(["a", "b"]);
          expect(read.slice(1)).toHaveLength(lines.length);
          lines.forEach((line, i) =>
            line.forEach((cell, j) => {
              const written = read[i + 1]?.[j];
              const expected = cell === null || cell === undefined ? "" : String(cell);
              if (typeof cell === "number" && !Number.isFinite(cell)) expect(written).toBe("");
              else if (typeof cell === "number" && cell >= 0) expect(written).toBe(expected);
              else expect(written?.replaceAll("'", "")).toBe(expected.replaceAll("'", ""));
              // A value without a formula start is written exactly, unless it ends its line with a break (`…;`).
              const endsWithBreak = j === line.length - 1 && /[,;\t\r\n][\s"]*$/.test(expected);
              if (typeof cell === "string" && !/[=+\-@\t\r]/.test(cell) && !endsWithBreak) expect(written).toBe(cell);
            }),
          );
        }),
        { numRuns: 1_000 },
      );
    },
  );
});
