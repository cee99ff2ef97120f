import { randomBytes } from "node:crypto";
import { charLength, isRecord, nonEmptyString, shown } from "../json.ts";
import type { SandboxState } from "../state.ts";
import {
  ORDER_STATUS_SUB_CATEGORY,
  type SandboxTemplate,
  type TemplateCategory,
  type TemplateComponent,
} from "../types.ts";
import { fbtraceId, MetaError, type GraphResult } from "./errors.ts";

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

const CATEGORIES: readonly TemplateCategory[] = ["MARKETING", "UTILITY", "AUTHENTICATION"];
const COMPONENT_TYPES: readonly TemplateComponent["type"][] = ["HEADER", "BODY", "FOOTER", "BUTTONS", "CAROUSEL"];
const PARAMETER_FORMATS: readonly SandboxTemplate["parameter_format"][] = ["POSITIONAL", "NAMED"];
const NAME_MAX = 512;
const BODY_MAX = 1024;
/** What an order-status template may hold (meta-late-2026 §1): its body and, optionally, a footer. */
const ORDER_STATUS_COMPONENTS: readonly TemplateComponent["type"][] = ["BODY", "FOOTER"];

/**
 * A refused template creation. Meta answers these with code 100 "Invalid parameter" and says what is wrong in
 * `error_user_title` / `error_user_msg` (no `error_data`, unlike message sends); its `error_subcode`s are not in the
 * reference, so the sandbox sends none.
 */
class TemplateCreationError extends Error {
  constructor(
    readonly title: string,
    readonly userMessage: string,
  ) {
    super(userMessage);
    this.name = "TemplateCreationError";
  }

  toResult(): GraphResult {
    return {
      status: 400,
      body: {
        error: {
          message: "Invalid parameter",
          type: "OAuthException",
          code: 100,
          is_transient: false,
          error_user_title: this.title,
          error_user_msg: this.userMessage,
          fbtrace_id: fbtraceId(),
        },
      },
    };
  }
}

function refuse(title: string, userMessage: string): never {
  throw new TemplateCreationError(title, userMessage);
}

function upper(value: unknown): string | undefined {
  return typeof value === "string" ? value.toUpperCase() : undefined;
}

function readComponents(value: unknown, category: TemplateCategory): TemplateComponent[] {
  if (!Array.isArray(value) || value.length === 0)
    refuse("Missing components", "The parameter components is required and must list the template's components.");
  const components = value.map((item: unknown, i: number): TemplateComponent => {
    const type = isRecord(item) ? COMPONENT_TYPES.find((t) => t === upper(item.type)) : undefined;
    if (!isRecord(item) || type === undefined)
      refuse(
        "Invalid component type",
        `components[${i}].type must be one of ${COMPONENT_TYPES.join(", ")}; got ${shown(isRecord(item) ? item.type : item)}.`,
      );
    // Stored as Meta lists it: the type in upper case, the rest as sent.
    return { ...item, type };
  });
  for (const type of COMPONENT_TYPES) {
    if (components.filter((c) => c.type === type).length > 1)
      refuse("Duplicate component", `A template has at most one ${type} component.`);
  }
  const body = components.find((c) => c.type === "BODY");
  if (!body) refuse("Missing body", "A template needs a BODY component.");
  // Authentication bodies are Meta's own text (add_security_recommendation); every other body is the business's.
  if (category !== "AUTHENTICATION" && (!nonEmptyString(body.text) || charLength(body.text) > BODY_MAX))
    refuse("Invalid body", `The BODY text is required and has at most ${BODY_MAX} characters.`);
  return components;
}

/** Meta's order-status template rules (meta-late-2026 §1): UTILITY, a BODY and an optional FOOTER, nothing else. */
function checkOrderStatusTemplate(category: TemplateCategory, components: TemplateComponent[]): void {
  if (category !== "UTILITY")
    refuse(
      "Invalid category for sub_category ORDER_STATUS",
      `A template of sub_category ORDER_STATUS must have the category UTILITY; got ${category}.`,
    );
  const others = components.filter((c) => !ORDER_STATUS_COMPONENTS.includes(c.type)).map((c) => c.type);
  if (others.length > 0)
    refuse(
      "Invalid components for sub_category ORDER_STATUS",
      `A template of sub_category ORDER_STATUS takes a BODY and an optional FOOTER only; got ${others.join(", ")}.`,
    );
}

/** A template id shaped like Meta's (16 digits), not yet in the catalogue. */
function newTemplateId(state: SandboxState): string {
  for (;;) {
    const id = (2_000_000_000_000_000n + BigInt(`0x${randomBytes(6).toString("hex")}`)).toString();
    if (!state.config.templates.some((t) => t.id === id)) return id;
  }
}

/**
 * POST /{version}/{waba-id}/message_templates: validates a new template and adds it to the catalogue as PENDING
 * (approve it with POST /_sandbox/templates/status, as Meta's review would), answering Meta's `{id, status,
 * category}`. The sandbox checks the basics (name, language, category, components, one name per language) and
 * Meta's order-status rules; everything else Meta's review decides is left to the control API.
 */
export function createTemplate(state: SandboxState, raw: string): GraphResult {
  try {
    let input: unknown;
    try {
      input = JSON.parse(raw);
    } catch {
      input = undefined;
    }
    if (!isRecord(input)) refuse("Invalid request", "The request body must be a JSON object.");
    const { name, language } = input;
    if (typeof name !== "string" || !/^[a-z0-9_]+$/.test(name) || name.length > NAME_MAX)
      refuse(
        "Invalid template name",
        `The parameter name is required: lower-case letters, digits and underscores, at most ${NAME_MAX} characters.`,
      );
    if (!nonEmptyString(language)) refuse("Missing language", "The parameter language is required.");
    const category = CATEGORIES.find((c) => c === upper(input.category));
    if (category === undefined)
      refuse("Invalid category", `The parameter category must be one of ${CATEGORIES.join(", ")}.`);
    const parameterFormat =
      input.parameter_format === undefined
        ? "POSITIONAL"
        : PARAMETER_FORMATS.find((f) => f === upper(input.parameter_format));
    if (parameterFormat === undefined)
      refuse(
        "Invalid parameter format",
        `The parameter parameter_format must be one of ${PARAMETER_FORMATS.join(", ")}.`,
      );
    if (input.sub_category !== undefined && !nonEmptyString(input.sub_category))
      refuse("Invalid sub_category", "The parameter sub_category must be a non-empty string.");
    const subCategory = upper(input.sub_category);
    const components = readComponents(input.components, category);
    if (subCategory === ORDER_STATUS_SUB_CATEGORY) checkOrderStatusTemplate(category, components);
    if (state.config.templates.some((t) => t.name === name && t.language === language))
      refuse("Content in this language already exists", `The template ${name} already exists in ${language}.`);

    const template: SandboxTemplate = {
      id: newTemplateId(state),
      name,
      language,
      status: "PENDING",
      category,
      ...(subCategory !== undefined ? { sub_category: subCategory } : {}),
      parameter_format: parameterFormat,
      components,
      quality_score: { score: "UNKNOWN", date: Math.floor(state.now() / 1000) },
      rejected_reason: "NONE",
    };
    // A new array: the fixtures the sandbox started with are never mutated.
    state.config.templates = [...state.config.templates, template];
    return { status: 200, body: { id: template.id, status: template.status, category: template.category } };
  } catch (error) {
    if (error instanceof TemplateCreationError) return error.toResult();
    throw error;
  }
}
