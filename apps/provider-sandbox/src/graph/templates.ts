import type { SandboxState } from "../state.ts";
import type { SandboxTemplate } from "../types.ts";
import { MetaError, type GraphResult } from "./errors.ts";

// Cursors are opaque to callers, like Meta's; they carry the id of the item they point at, so a page stays
// anchored even if the catalogue changes between calls.
function encodeCursor(id: string): string {
  return Buffer.from(`sandbox:${id}`, "utf8").toString("base64url");
}

function decodeCursor(cursor: string, items: SandboxTemplate[], name: string): number {
  const decoded = Buffer.from(cursor, "base64url").toString("utf8");
  const index = decoded.startsWith("sandbox:") ? items.findIndex((t) => t.id === decoded.slice("sandbox:".length)) : -1;
  if (index < 0) throw new MetaError(100, `Invalid cursor in parameter ${name}.`);
  return index;
}

function parseLimit(value: string | null, fallback: number): number {
  if (value === null) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new MetaError(100, "Param limit must be a positive integer.");
  return Number(value);
}

/** `status`, `category` and `language` filters accept comma-separated values; `name` matches a substring. */
function filterTemplates(templates: SandboxTemplate[], query: URLSearchParams): SandboxTemplate[] {
  const list = (key: string): string[] | null => {
    const value = query.get(key);
    return value
      ? value
          .split(",")
          .map((s) => s.trim().toUpperCase())
          .filter(Boolean)
      : null;
  };
  const statuses = list("status");
  const categories = list("category");
  const languages = list("language");
  const name = query.get("name")?.toLowerCase();
  return templates.filter(
    (t) =>
      (!statuses || statuses.includes(t.status)) &&
      (!categories || categories.includes(t.category)) &&
      (!languages || languages.includes(t.language.toUpperCase())) &&
      (!name || t.name.toLowerCase().includes(name)),
  );
}

/** Meta's `fields` projection: the named fields plus `id`, which Meta always returns. */
function project(item: SandboxTemplate, fields: string[] | null): Record<string, unknown> {
  if (!fields) return { ...item };
  const out: Record<string, unknown> = {};
  const source: Record<string, unknown> = { ...item };
  for (const field of fields) if (field in source) out[field] = source[field];
  out.id = item.id;
  return out;
}

/**
 * GET /{version}/{waba-id}/message_templates with Meta's cursor paging. `next` and `previous` are absolute URLs
 * of this server that keep every query parameter (version, limit, filters) and move the cursor.
 */
export function listTemplates(state: SandboxState, requestUrl: URL): GraphResult {
  try {
    const query = requestUrl.searchParams;
    const limit = parseLimit(query.get("limit"), state.config.pageSize);
    const items = filterTemplates(state.config.templates, query);
    const after = query.get("after");
    const before = query.get("before");
    // `after` wins over `before`, as on Meta's cursor-based edges.
    let start = 0;
    let end = limit;
    if (after) {
      start = decodeCursor(after, items, "after") + 1;
      end = start + limit;
    } else if (before) {
      end = decodeCursor(before, items, "before");
      start = Math.max(0, end - limit);
    }
    const page = items.slice(start, end);
    const fieldsParam = query.get("fields");
    const fields = fieldsParam
      ? fieldsParam
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : null;
    const data = page.map((item) => project(item, fields));
    const first = page[0];
    const last = page[page.length - 1];
    if (!first || !last) return { status: 200, body: { data } };

    const link = (set: string, drop: string, cursor: string): string => {
      const url = new URL(requestUrl);
      url.searchParams.delete(drop);
      url.searchParams.set(set, cursor);
      return url.toString();
    };
    const cursors = { before: encodeCursor(first.id), after: encodeCursor(last.id) };
    const paging: Record<string, unknown> = { cursors };
    if (start > 0) paging.previous = link("before", "after", cursors.before);
    if (start + page.length < items.length) paging.next = link("after", "before", cursors.after);
    return { status: 200, body: { data, paging } };
  } catch (error) {
    if (error instanceof MetaError) return error.toResult();
    throw error;
  }
}
