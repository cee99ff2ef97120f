import escapeHtml from "escape-html";

/**
 * Markup that is already escaped. Pages are built only from `html` templates: every interpolated value is escaped
 * unless it is itself SafeHtml, so text from the database or the request never becomes markup.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Interpolated = SafeHtml | string | number | boolean | null | undefined | readonly Interpolated[];

function render(value: Interpolated): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map((item: Interpolated) => render(item)).join("");
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolated[]): SafeHtml {
  let out = strings[0] ?? "";
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? "");
  });
  return new SafeHtml(out);
}

/** Trusted markup written in this codebase (never data). */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

export type { Interpolated };
