/**
 * CSV as RFC 4180 writes it and spreadsheets save it, read as a stream with csv-parse: a UTF-8 BOM, LF, CRLF or CR
 * line ends, and `,`, `;` or tab as the separator (Excel in Brazilian Portuguese saves with `;`), told from the header
 * line. The text may be given whole or arrive in pieces (a request body): records come out as they are read, so a
 * caller can stop at the row it will not take, and the event loop gets a turn between pieces. The limits refuse what
 * no spreadsheet writes before it can take the process's memory: a line of millions of separators, a field of
 * megabytes (an unclosed quote swallowing the rest of the file).
 */

import { isUtf8 } from "node:buffer";
import { setImmediate as nextTurn } from "node:timers/promises";
import { parse, CsvError as ParseError, type InfoRecord, type Parser } from "csv-parse";
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

export interface CsvReadLimits {
  /** Fields one record may have (separators are cheap to send, each field costs memory). */
  maxFields: number;
  /** Characters one field may have. */
  maxFieldLength: number;
}

/** A file's text, whole or as it arrives (already decoded: see decodeCsv). */
export type CsvSource = string | AsyncIterable<string>;

/** Characters parsed at once before the event loop gets a turn. */
const SLICE = 64 * 1024;
/** Records handed out between two turns of the event loop (the caller's work on each runs in between). */
const RECORDS_PER_TURN = 1_000;
/** The header is looked for in this much text at most; past it, the separator is told from what was read. */
const HEADER_PEEK = 64 * 1024;

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

/** Whether `text` holds a whole first line (a line break outside quotes). */
function hasFirstLine(text: string): boolean {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === "\n" || char === "\r")) return true;
  }
  return false;
}

/** `source` in pieces of at most SLICE characters, never splitting a surrogate pair. */
async function* slicesOf(source: CsvSource): AsyncGenerator<string, void, undefined> {
  const pieces = typeof source === "string" ? [source] : source;
  for await (const piece of pieces) {
    for (let start = 0; start < piece.length;) {
      let end = Math.min(start + SLICE, piece.length);
      const last = piece.charCodeAt(end - 1);
      if (end < piece.length && last >= 0xd800 && last <= 0xdbff) end--;
      yield piece.slice(start, end);
      start = end;
    }
  }
}

function lineBreaks(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 10 || (char === 13 && text.charCodeAt(i + 1) !== 10)) count++;
  }
  return count;
}

function crlfCount(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\r\n"); at >= 0; at = text.indexOf("\r\n", at + 2)) count++;
  return count;
}

/** The Portuguese sentence for csv-parse's refusal, at `line` (the line it names) or `recordLine` (where it began). */
function describe(error: ParseError, line: number, recordLine: number): CsvError {
  switch (error.code) {
    case "CSV_QUOTE_NOT_CLOSED":
      return new CsvError(`As aspas abertas na linha ${recordLine} nunca são fechadas.`, recordLine);
    case "CSV_INVALID_CLOSING_QUOTE":
      return new CsvError(
        `Na linha ${line}, um campo entre aspas continua depois de fechar as aspas; use "" para aspas dentro do campo.`,
        line,
      );
    case "INVALID_OPENING_QUOTE":
      return new CsvError(
        `Na linha ${line}, há aspas no meio de um campo; ponha o campo inteiro entre aspas e escreva cada aspa como "".`,
        line,
      );
    default:
      return new CsvError(`O arquivo não é um CSV válido perto da linha ${line}.`, line);
  }
}

const QUOTE = 34;
const LF = 10;
const CR = 13;

/**
 * Follows the text one character at a time as csv-parse will read it (quotes, separators, line ends) and refuses a
 * record past the limits before it is parsed: csv-parse keeps every field of a record until the record ends, and its
 * per-field hooks cost ten times the parse. Also counts the file's lines, for the messages.
 */
class LimitGuard {
  private quoted = false;
  private fields = 1;
  private fieldLength = 0;
  private afterCr = false;
  /** 1-based line of the next character, and of the field being read (it may span lines inside quotes). */
  line = 1;
  private fieldLine = 1;

  constructor(
    private readonly separator: number,
    private readonly limits: CsvReadLimits,
  ) {}

  scan(text: string): void {
    const { maxFields, maxFieldLength } = this.limits;
    for (let i = 0; i < text.length; i++) {
      const char = text.charCodeAt(i);
      const afterCr = this.afterCr;
      this.afterCr = char === CR;
      if (char === QUOTE) {
        // RFC 4180: quotes only enclose a field, a doubled one stands for one (and toggles twice).
        this.quoted = !this.quoted;
        continue;
      }
      if (char === LF || char === CR) {
        if (char === CR || !afterCr) this.line++;
        if (!this.quoted) {
          this.fields = 1;
          this.fieldLength = 0;
          this.fieldLine = this.line;
          continue;
        }
      } else if (char === this.separator && !this.quoted) {
        if (++this.fields > maxFields)
          throw new CsvError(`A linha ${this.line} tem mais de ${maxFields} campos; confira o separador.`, this.line);
        this.fieldLength = 0;
        this.fieldLine = this.line;
        continue;
      }
      if (++this.fieldLength > maxFieldLength)
        throw new CsvError(
          this.quoted
            ? `Na linha ${this.fieldLine}, um campo entre aspas passa de ${maxFieldLength} caracteres; confira se alguma aspa ficou aberta.`
            : `Na linha ${this.fieldLine}, um campo passa de ${maxFieldLength} caracteres.`,
          this.fieldLine,
        );
    }
  }
}

/**
 * Every record of `source`, empty lines left out, as they are read. Throws CsvError for a quote that is never closed
 * or misplaced, a character PostgreSQL cannot store, or a record past the limits. Stopping the iteration stops the
 * reading (and the source's).
 */
export async function* readCsv(source: CsvSource, limits: CsvReadLimits): AsyncGenerator<CsvRecord, void, undefined> {
  // csv-parse counts a CRLF inside quotes as two lines: its line numbers run ahead by the CRLFs read so far.
  let drift = 0;
  let lastLine = 0;
  let emptyAtLast = 0;
  const ready: CsvRecord[] = [];
  let parser: Parser | undefined;
  let guard: LimitGuard | undefined;

  const createParser = (separator: string) => {
    const created = parse({
      bom: true,
      delimiter: separator,
      record_delimiter: ["\r\n", "\n", "\r"],
      relax_column_count: true,
      skip_empty_lines: true,
      // Taken here, synchronously, rather than from the stream's readable side (nothing is pushed there).
      on_record: (record: string[], info: InfoRecord) => {
        drift += record.reduce((sum, field) => sum + crlfCount(field), 0);
        lastLine = info.lines - drift;
        emptyAtLast = info.empty_lines;
        ready.push({ line: lastLine - record.reduce((sum, field) => sum + lineBreaks(field), 0), fields: record });
        return null;
      },
    });
    // Each refusal reaches the write's callback (see write); the event would otherwise be unhandled.
    created.on("error", () => undefined);
    return created;
  };

  /** Writes `text` (null: the end); what it fails with, as a CsvError. */
  const write = async (text: string | null): Promise<void> => {
    const current = parser;
    if (!current) return;
    const error = await new Promise<Error | null | undefined>((resolve) => {
      if (text === null) current.end(resolve);
      else current.write(text, resolve);
    });
    if (!error) return;
    const lines = (error as { lines?: unknown }).lines;
    const line = (typeof lines === "number" ? lines : lastLine + 1) - drift;
    // Where the failing record began: after the last record and the empty lines since.
    const recordLine = Math.min(line, lastLine + 1 + (current.info.empty_lines - emptyAtLast));
    throw error instanceof ParseError
      ? describe(error, line, recordLine)
      : new CsvError("O arquivo não é um CSV válido.", recordLine);
  };

  async function* handOut(): AsyncGenerator<CsvRecord, void, undefined> {
    for (let i = 0; i < ready.length; i++) {
      yield ready[i] as CsvRecord;
      if ((i + 1) % RECORDS_PER_TURN === 0) await nextTurn();
    }
    ready.length = 0;
    await nextTurn();
  }

  /** Checks and writes `text`, then hands out its records, even those read before a refusal. */
  async function* feed(text: string | null): AsyncGenerator<CsvRecord, void, undefined> {
    let failure: Error | undefined;
    try {
      if (text !== null) {
        // PostgreSQL cannot store U+0000 or a lone surrogate (csv-parse would turn the latter into U+FFFD).
        const at = text.search(UNSTORABLE_CHARACTER);
        if (at >= 0) {
          const line = (guard?.line ?? 1) + lineBreaks(text.slice(0, at));
          const reason = unstorableTextReason(text) ?? "O texto contém um caractere inválido.";
          throw new CsvError(`${reason.slice(0, -1)}, na linha ${line}.`, line);
        }
        guard?.scan(text);
      }
      await write(text);
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
    }
    yield* handOut();
    if (failure) throw failure;
  }

  const start = (head: string) => {
    const separator = detectSeparator(head.replace(/^\uFEFF/, ""));
    guard = new LimitGuard(separator.charCodeAt(0), limits);
    parser = createParser(separator);
  };

  let head = "";
  try {
    for await (const piece of slicesOf(source)) {
      if (!parser) {
        head += piece;
        if (!hasFirstLine(head) && head.length < HEADER_PEEK) continue;
        start(head);
        const text = head;
        head = "";
        yield* feed(text);
        continue;
      }
      yield* feed(piece);
    }
    if (!parser) {
      start(head);
      yield* feed(head);
    }
    yield* feed(null);
  } finally {
    parser?.destroy();
  }
}

/**
 * A file's bytes as text, in pieces as they arrive. `charset` is the body's (a WHATWG label: utf-8, windows-1252,
 * iso-8859-1...); "auto" reads UTF-8 and, when the bytes are not UTF-8, Windows-1252, as Excel in Portuguese saves
 * CSV (whole files only: "João" never arrives as "Jo�o"). Invalid bytes otherwise become U+FFFD.
 */
export async function* decodeCsv(
  bytes: Uint8Array | AsyncIterable<Uint8Array>,
  /** A WHATWG label, or "auto". */
  charset = "utf-8",
): AsyncGenerator<string, void, undefined> {
  const label =
    charset === "auto" ? (bytes instanceof Uint8Array && !isUtf8(bytes) ? "windows-1252" : "utf-8") : charset;
  const decoder = new TextDecoder(label);
  const pieces: Iterable<Uint8Array> | AsyncIterable<Uint8Array> =
    bytes instanceof Uint8Array
      ? (function* () {
          for (let start = 0; start < bytes.length; start += SLICE) yield bytes.subarray(start, start + SLICE);
        })()
      : bytes;
  for await (const piece of pieces) {
    const text = decoder.decode(piece, { stream: true });
    if (text !== "") yield text;
  }
  const rest = decoder.decode();
  if (rest !== "") yield rest;
}

/** Whether `charset` names an encoding decodeCsv reads. */
export function isCsvCharset(charset: string): boolean {
  try {
    new TextDecoder(charset);
    return true;
  } catch {
    return false;
  }
}
