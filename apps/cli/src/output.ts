// How results and errors are written: JSON for scripts, text for a person at a terminal (see `pnpm gateway --help`).
import { COMMANDS, helpHint, type CommandName, type CommandSpec } from "./spec.ts";

export type Format = "json" | "text";

/** Flags win (`--json`, `--no-json`); otherwise text on a terminal, JSON into a pipe or a file. */
export function chooseFormat(requested: Format | undefined, stdoutIsTerminal: boolean): Format {
  return requested ?? (stdoutIsTerminal ? "text" : "json");
}

/** What failed, as the operator should read it. */
export interface Failure {
  message: string;
  exitCode: 1 | 2;
  /** For usage errors: the command (or group) whose `--help` to point at; "" for the general help. */
  helpFor?: string;
}

// API keys, signing secrets and passwords in URLs never reach an error message, whatever produced it.
const SECRETS: readonly [RegExp, string][] = [
  [/pt_live_[A-Za-z0-9_-]+/g, "pt_live_***"],
  [/whsec_[A-Za-z0-9_-]+/g, "whsec_***"],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+@/gi, "$1***@"],
];

export function redactSecrets(text: string): string {
  return SECRETS.reduce((acc, [pattern, replacement]) => acc.replace(pattern, replacement), text);
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Control characters (a name with an escape sequence, say) are shown, not sent to the terminal. */
function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

export function renderFailure(failure: Failure, format: Format): string {
  const message = redactSecrets(failure.message);
  if (format === "json") return JSON.stringify({ error: message }) + "\n";
  const lines = [`erro: ${printable(message)}`];
  if (failure.helpFor !== undefined) lines.push(helpHint(failure.helpFor || undefined));
  return lines.join("\n") + "\n";
}

export function renderResult(command: CommandName, result: unknown, format: Format): string {
  if (format === "json") return JSON.stringify(result, null, 2) + "\n";
  const spec: CommandSpec = COMMANDS[command];
  const lines: string[] = [];
  if (Array.isArray(result)) {
    if (result.length === 0) return `${spec.empty ?? "Nenhum resultado."}\n`;
    lines.push(
      spec.done,
      "",
      ...rowsTable(result),
      "",
      result.length === 1 ? "1 registro." : `${result.length} registros.`,
    );
  } else if (isRecord(result)) {
    lines.push(spec.done, "", ...keyValues(result));
  } else {
    lines.push(spec.done, "", `  ${cell(result)}`);
  }
  const after = typeof spec.after === "function" ? (isRecord(result) ? spec.after(result) : undefined) : spec.after;
  if (after) lines.push("", after);
  return lines.join("\n") + "\n";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One value on one line: lists joined by commas, nested objects as `key=value`, null as "-". */
function cell(value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (typeof value === "boolean") return value ? "sim" : "não";
  if (typeof value === "string") return printable(value.replace(/\r?\n/g, " ⏎ "));
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(cell).join(", ");
  if (isRecord(value)) {
    return Object.entries(value)
      .map(([key, inner]) => `${key}=${isRecord(inner) || Array.isArray(inner) ? `(${cell(inner)})` : cell(inner)}`)
      .join(", ");
  }
  return "?";
}

function keyValues(record: Record<string, unknown>): string[] {
  const entries = Object.entries(record);
  const width = Math.max(0, ...entries.map(([key]) => key.length));
  return entries.map(([key, value]) => `  ${key.padEnd(width)}  ${cell(value)}`.trimEnd());
}

function rowsTable(rows: readonly unknown[]): string[] {
  const records = rows.map((row) => (isRecord(row) ? row : { valor: row }));
  const columns = [...new Set(records.flatMap((record) => Object.keys(record)))];
  const body = records.map((record) => columns.map((column) => cell(record[column])));
  const widths = columns.map((column, i) => Math.max(column.length, ...body.map((cells) => (cells[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    `  ${cells.map((text, i) => text.padEnd(widths[i] ?? 0)).join("  ")}`.trimEnd();
  return [line(columns), ...body.map(line)];
}
