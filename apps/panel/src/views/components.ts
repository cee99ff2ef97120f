import type { Request } from "express";
import type { z } from "@gw/config";
import { PanelHttpError } from "../http/errors.ts";
import { html, type Interpolated, type SafeHtml } from "./html.ts";

/** The hidden CSRF field every POST form carries. */
export function csrfField(req: Request): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${req.panelUser?.csrfToken ?? ""}" />`;
}

/**
 * A one-button form that POSTs to `action`. `confirm` asks before submitting (panel.js); `fields` become hidden
 * inputs.
 */
export function postButton(
  req: Request,
  options: {
    action: string;
    label: string;
    confirm?: string;
    danger?: boolean;
    fields?: Record<string, string>;
    /** Accessible name when the visible label alone is ambiguous in a table row. */
    ariaLabel?: string;
  },
): SafeHtml {
  return html`<form
    method="post"
    action="${options.action}"
    class="inline"
    ${options.confirm ? html`data-confirm="${options.confirm}"` : ""}
  >
    ${csrfField(req)}
    ${Object.entries(options.fields ?? {}).map(
      ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
    )}
    <button
      type="submit"
      class="${options.danger ? "danger" : "secondary"}"
      ${options.ariaLabel ? html`aria-label="${options.ariaLabel}"` : ""}
    >
      ${options.label}
    </button>
  </form>`;
}

/** A table with a caption (read by screen readers) and an empty-state line. */
export function table(options: {
  caption: string;
  headers: readonly string[];
  rows: readonly (readonly Interpolated[])[];
  empty: string;
  /** On a phone, each row as a card with its cells under their column's name (panel.css, table.reflow). */
  reflow?: boolean;
}): SafeHtml {
  if (options.rows.length === 0) return html`<p class="empty">${options.empty}</p>`;
  return html`<div class="table-wrap">
    <table class="${options.reflow ? "reflow" : ""}">
      <caption>
        ${options.caption}
      </caption>
      <thead>
        <tr>
          ${options.headers.map((header) => html`<th scope="col">${header}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${options.rows.map(
          (row) =>
            html`<tr>
              ${row.map((cell, index) =>
                options.reflow
                  ? html`<td data-label="${options.headers[index] ?? ""}">${cell}</td>`
                  : html`<td>${cell}</td>`,
              )}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** Links to the next page of a keyset-paged list; `query` keeps the current filters. */
export function pager(options: {
  path: string;
  query: Record<string, string | undefined>;
  next: string | null;
}): SafeHtml {
  if (!options.next) return html``;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(options.query)) if (value) params.set(key, value);
  params.set("cursor", options.next);
  return html`<nav class="pager" aria-label="Paginação">
    <a href="${options.path}?${params.toString()}">Próxima página →</a>
  </nav>`;
}

/** A status word as a coloured badge (the word itself is the information; colour only repeats it). */
export function badge(text: string, tone: "ok" | "warn" | "bad" | "neutral" = "neutral"): SafeHtml {
  return html`<span class="badge ${tone}">${text}</span>`;
}

/** The confirmation or error of the previous POST, read from `?ok=` / `?erro=` against the page's own messages. */
export function noticeFrom(
  req: Request,
  messages: Record<string, string>,
): { kind: "ok" | "error"; text: string } | null {
  const ok = typeof req.query.ok === "string" ? messages[req.query.ok] : undefined;
  if (ok) return { kind: "ok", text: ok };
  const error = typeof req.query.erro === "string" ? messages[req.query.erro] : undefined;
  return error ? { kind: "error", text: error } : null;
}

/** A query-string value as a string (repeated or absent values give undefined). */
export function queryText(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * A page's filters: the query parameters `schema` names, each read as `queryText` reads it, then parsed; a 400 with
 * `refusal` when they do not parse.
 */
export function readQueryFilters<S extends z.ZodObject>(req: Request, schema: S, refusal: string): z.output<S> {
  const fields = Object.fromEntries(Object.keys(schema.shape).map((name) => [name, queryText(req, name)]));
  const parsed = schema.safeParse(fields);
  if (!parsed.success) throw new PanelHttpError(400, refusal);
  return parsed.data;
}

/** A filter's `<select>` with its label; the empty choice ("Todos") means no filter. */
export function select(
  name: string,
  label: string,
  values: readonly { value: string; text: string }[],
  current?: string,
): SafeHtml {
  return html`<label
    >${label}
    <select name="${name}">
      <option value="">Todos</option>
      ${values.map(
        (option) =>
          html`<option value="${option.value}" ${option.value === current ? "selected" : ""}>${option.text}</option>`,
      )}
    </select></label
  >`;
}
