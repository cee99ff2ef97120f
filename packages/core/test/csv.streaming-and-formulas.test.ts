import { describe, expect, it } from "@jest/globals";
import { parse } from "csv-parse/sync";
import { RecipientsFileError, rowsFromCsv } from "../src/campaigns/index.ts";
import { csvLine, decodeCsv, readCsv, type CsvRecord } from "../src/csv/index.ts";

// The campaign CSV is read as a stream with limits (a hostile file is refused before it takes the process's memory
// or its event loop), and every CSV the gateway writes is safe to open in a spreadsheet (OWASP's CSV injection rule).

const LIMITS = { maxFields: 64, maxFieldLength: 32_768 };

async function records(text: string | AsyncIterable<string>): Promise<CsvRecord[]> {
  const out: CsvRecord[] = [];
  for await (const record of readCsv(text, LIMITS)) out.push(record);
  return out;
}

async function refusal(text: string | AsyncIterable<string>): Promise<RecipientsFileError> {
  const error = await rowsFromCsv(text).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof RecipientsFileError)) throw new Error(`esperava RecipientsFileError, veio ${String(error)}`);
  return error;
}

/** `count` pieces of `piece`, counting how many were taken: what a request body gives as it arrives. */
function arriving(head: string, piece: string, count: number) {
  const state = { taken: 0 };
  async function* pieces() {
    yield head;
    while (state.taken < count) {
      state.taken++;
      // As a socket gives them: each piece in a turn of its own.
      await Promise.resolve();
      yield piece;
    }
  }
  return { pieces: pieces(), state };
}

describe("reading a campaign CSV as it arrives", () => {
  it("stops reading at row 100 001 and refuses the file as too_long, without taking the rest", async () => {
    // 2 MB of one-digit rows: 1 000 000 of them, in pieces of 1 000 rows.
    const body = arriving("to\n", "1\n".repeat(1_000), 1_000);
    const error = await refusal(body.pieces);
    expect(error.problem).toBe("too_long");
    expect(error.message).toBe("O CSV tem mais de 100000 linhas de destinatários; o máximo por campanha é 100000.");
    // Row 100 001 is in piece 101; what the parser read ahead of it is at most a few pieces.
    expect(body.state.taken).toBeGreaterThanOrEqual(101);
    expect(body.state.taken).toBeLessThan(110);
  }, 60_000);

  it("takes exactly 100 000 rows", async () => {
    const rows = await rowsFromCsv("to\n" + "5511987650001\n".repeat(100_000));
    expect(rows).toHaveLength(100_000);
    expect(rows.at(-1)).toMatchObject({ row: 100_000, input: { to: "5511987650001" } });
  }, 60_000);

  it("refuses a line of separators at its 65th field, before reading the rest of it", async () => {
    for (const head of ["", "to\n"]) {
      const body = arriving(head, ",".repeat(64 * 1024), 512); // 32 MiB of commas on one line
      const error = await refusal(body.pieces);
      expect({ head, problem: error.problem }).toEqual({ head, problem: "csv_invalid" });
      expect(error.message).toBe(
        `O CSV não pôde ser lido: A linha ${head ? 2 : 1} tem mais de 64 campos; confira o separador.`,
      );
      expect(body.state.taken).toBeLessThan(4);
    }
    // Spreadsheets' trailing empty fields, within the limit, are no problem.
    expect(await rowsFromCsv("to;variable_1\n5511987650001;Ana" + ";".repeat(40) + "\n")).toHaveLength(1);
  });

  it("refuses a field longer than any value a send takes, and a quote left open over megabytes", async () => {
    const long = await refusal(`to,variable_1\n5511987650001,${"x".repeat(32_769)}\n`);
    expect(long.problem).toBe("csv_invalid");
    expect(long.message).toBe("O CSV não pôde ser lido: Na linha 2, um campo passa de 32768 caracteres.");
    // A body-only template's variable at its longest is still read.
    expect(await rowsFromCsv(`to,variable_1\n5511987650001,${"x".repeat(32_768)}\n`)).toHaveLength(1);

    const open = arriving('to,variable_1\n5511987650001,"aberta\n', "5511987650002,Ana\n".repeat(1_000), 1_000);
    const swallowed = await refusal(open.pieces);
    expect(swallowed.problem).toBe("csv_invalid");
    expect(swallowed.message).toBe(
      "O CSV não pôde ser lido: Na linha 2, um campo entre aspas passa de 32768 caracteres; confira se alguma aspa ficou aberta.",
    );
    expect(open.state.taken).toBeLessThan(10);
  });

  it("gives the event loop turns while it reads a big file (a request to the same process is not held)", async () => {
    let turns = 0;
    const ticker = setInterval(() => turns++, 1);
    try {
      await refusal("to\n" + "1\n".repeat(200_000));
    } finally {
      clearInterval(ticker);
    }
    expect(turns).toBeGreaterThan(5);
  }, 60_000);

  it("names the line where each record starts, after quoted line breaks (CRLF too) and empty lines", async () => {
    const text = 'a,b\r\n"1\r\n2\r\n3",x\r\n\r\nb,y\r\n"c\nd",z\r\ne,w\r\n';
    expect((await records(text)).map((r) => r.line)).toEqual([1, 2, 6, 7, 9]);
    const extra = await rowsFromCsv('to,client_ref\r\n"5511987650001","a\r\nb"\r\n\r\n5511987650002,c,sobra\r\n');
    expect(extra[1]).toMatchObject({ rejected: { code: "csv_extra_fields" } });
    expect((extra[1] as { rejected: { message: string } }).rejected.message).toMatch(/^A linha 5 do CSV/);
  });

  it("refuses text PostgreSQL cannot store, naming its line, and a quote in the middle of a field", async () => {
    expect((await refusal("to\n5511987650001\n55119\u000087650002\n")).message).toBe(
      "O CSV não pôde ser lido: O texto não pode conter o caractere nulo (U+0000), na linha 3.",
    );
    expect((await refusal("to,variable_1\n5511987650001,Ana\n5511987650002,\ud800\n")).message).toBe(
      "O CSV não pôde ser lido: O texto contém um caractere Unicode inválido (metade de um par substituto), na linha 3.",
    );
    expect((await refusal('to,variable_1\n5511987650001,Rua 5" polegadas\n')).message).toBe(
      'O CSV não pôde ser lido: Na linha 2, há aspas no meio de um campo; ponha o campo inteiro entre aspas e escreva cada aspa como "".',
    );
  });

  it("reads an upload in Windows-1252 (Excel in Portuguese) and one in UTF-8 split in the middle of a character", async () => {
    const latin = Buffer.from("to;variable_1\r\n5511987650001;João\r\n", "latin1");
    const fromLatin: string[] = [];
    for await (const text of decodeCsv(latin, "auto")) fromLatin.push(text);
    expect((await records(fromLatin.join(""))).at(-1)?.fields).toEqual(["5511987650001", "João"]);

    const utf8 = Buffer.from("to;variable_1\r\n5511987650001;João\r\n", "utf8");
    const at = utf8.indexOf(0xc3) + 1; // between the two bytes of "ã"
    async function* split() {
      yield utf8.subarray(0, at);
      await Promise.resolve();
      yield utf8.subarray(at);
    }
    expect((await records(decodeCsv(split()))).at(-1)?.fields).toEqual(["5511987650001", "João"]);
  });
});

describe("writing CSV safe to open in a spreadsheet", () => {
  const attack = "x;=cmd|' /C calc'!A0;";

  it("quotes every text cell and puts an apostrophe before one a spreadsheet would run as a formula", () => {
    expect(csvLine([1, attack, "=1+1", "+55 11", "-2", "@SUM(A1)", "\tx", "\rx", 'say "hi"', "", null, 3.5])).toBe(
      `1,"x;'=cmd|' /C calc'!A0;","'=1+1","'+55 11","'-2","'@SUM(A1)","'\tx","'\rx","say ""hi""","",,3.5\r\n`,
    );
  });

  it("a cell never splits where Excel in Portuguese (`;`) or in English (`,`) would, and reads back as written", () => {
    const line = csvLine(["row", attack, "a,b", "c\td"]);
    // Outside the quotes there is only the comma between cells: no `;` or tab a spreadsheet could split on.
    const outside = line.replace(/"(?:[^"]|"")*"/g, "");
    expect(outside).toBe(",,,\r\n");
    // The formula a `;` inside the value would start is defused too (csv.formulas-split-anywhere.test.ts).
    expect(parse(line)).toEqual([["row", "x;'=cmd|' /C calc'!A0;", "a,b", "c\td"]]);
  });
});
