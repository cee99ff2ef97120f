/** Narrowing helpers for request bodies, which arrive as untyped JSON. */
export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function nonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

export function isInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value);
}

/** A request value as an error message quotes it: strings as they are, anything else as JSON. */
export function shown(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value) ?? String(value);
}

/** Meta accepts a button `index` both as `0` and `"0"`. */
export function parseIndex(value: unknown): number | undefined {
  if (isInteger(value) && value >= 0) return value;
  if (typeof value === "string" && /^\d+$/.test(value)) return Number(value);
  return undefined;
}

/** Length in characters (code points), as Meta counts them. */
export function charLength(text: string): number {
  return [...text].length;
}
