import { z } from "zod";

/** One item of `HTTPValidationError.detail` (spec section 7), in the style of the spec's origin (FastAPI/pydantic). */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export type RequestLocation = "body" | "query" | "path" | "header";

/** Thrown by the edge validation; rendered as 422 `{detail:[...]}`. */
export class RequestValidationError extends Error {
  constructor(readonly detail: ValidationIssue[]) {
    super("Requisição inválida");
    this.name = "RequestValidationError";
  }
}

const DECIMAL_EXPECTED = "O valor deve ser um número (decimais com ponto).";

/**
 * A JSON number that may have decimals (a coordinate). Plain `z.number()` reads as an integer in the messages (zod
 * reports both alike), so this one marks its type issue.
 */
export function decimalNumber() {
  return z.number({ error: (issue) => (issue.code === "invalid_type" ? DECIMAL_EXPECTED : undefined) });
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

type ZodIssue = z.core.$ZodIssue;

function describeExpected(values: readonly unknown[]): string {
  const quoted = values.map((v) => `'${String(v)}'`);
  return quoted.length <= 1 ? (quoted[0] ?? "") : `${quoted.slice(0, -1).join(", ")} ou ${quoted.at(-1)}`;
}

function isTagged(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A tag as pydantic's ctx shows it: a string as it is, anything else as JSON; a value nested deeper than
 * JSON.stringify goes (a list of lists thousands deep) only as its kind, so the 422 is still written.
 */
function shownTag(tag: unknown): string {
  if (typeof tag === "string") return tag;
  try {
    return JSON.stringify(tag) ?? "undefined";
  } catch {
    return Array.isArray(tag) ? "[…]" : "{…}";
  }
}

function issueInput(issue: ZodIssue): unknown {
  return (issue as { input?: unknown }).input;
}

/** Map one zod issue to a pydantic-style item; `msg` is a Portuguese sentence, `type` the stable machine word. */
export function toValidationIssue(issue: ZodIssue, location: RequestLocation): ValidationIssue {
  const loc: (string | number)[] = [location, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
  const input = issueInput(issue);
  const withInput = (item: Omit<ValidationIssue, "loc">): ValidationIssue =>
    input === undefined ? { loc, ...item } : { loc, ...item, input };

  switch (issue.code) {
    case "invalid_type": {
      if (input === undefined) return { loc, msg: "Campo obrigatório.", type: "missing" };
      const expected = issue.expected;
      // A number that may have decimals (`decimalNumber()`): pydantic's float words.
      if (expected === "number" && issue.message === DECIMAL_EXPECTED)
        return withInput({ msg: DECIMAL_EXPECTED, type: typeof input === "string" ? "float_parsing" : "float_type" });
      if (expected === "int" || expected === "number") {
        if (typeof input === "string" || Number.isNaN(input))
          return withInput({ msg: "O valor deve ser um número inteiro válido.", type: "int_parsing" });
        return withInput({ msg: "O valor deve ser um número inteiro.", type: "int_type" });
      }
      if (expected === "string") return withInput({ msg: "O valor deve ser um texto.", type: "string_type" });
      if (expected === "array") return withInput({ msg: "O valor deve ser uma lista.", type: "list_type" });
      if (expected === "boolean") return withInput({ msg: "O valor deve ser verdadeiro ou falso.", type: "bool_type" });
      if (expected === "object") {
        return withInput({
          msg: "O valor deve ser um objeto JSON.",
          type: location === "body" && issue.path.length === 0 ? "model_attributes_type" : "dict_type",
        });
      }
      return withInput({ msg: `O valor deve ser do tipo ${expected}.`, type: `${expected}_type` });
    }
    case "too_big": {
      const max = Number(issue.maximum);
      if (issue.origin === "string") {
        return withInput({
          msg: `O texto deve ter no máximo ${plural(max, "caractere", "caracteres")}.`,
          type: "string_too_long",
          ctx: { max_length: max },
        });
      }
      if (issue.origin === "array") {
        const actual = Array.isArray(input) ? input.length : undefined;
        return withInput({
          msg: `A lista deve ter no máximo ${plural(max, "item", "itens")}.`,
          type: "too_long",
          ctx: { field_type: "List", max_length: max, ...(actual === undefined ? {} : { actual_length: actual }) },
        });
      }
      return issue.inclusive === false
        ? withInput({ msg: `O valor deve ser menor que ${max}.`, type: "less_than", ctx: { lt: max } })
        : withInput({ msg: `O valor deve ser menor ou igual a ${max}.`, type: "less_than_equal", ctx: { le: max } });
    }
    case "too_small": {
      const min = Number(issue.minimum);
      if (issue.origin === "string") {
        return withInput({
          msg: `O texto deve ter ao menos ${plural(min, "caractere", "caracteres")}.`,
          type: "string_too_short",
          ctx: { min_length: min },
        });
      }
      if (issue.origin === "array") {
        const actual = Array.isArray(input) ? input.length : undefined;
        return withInput({
          msg: `A lista deve ter ao menos ${plural(min, "item", "itens")}.`,
          type: "too_short",
          ctx: { field_type: "List", min_length: min, ...(actual === undefined ? {} : { actual_length: actual }) },
        });
      }
      return issue.inclusive === false
        ? withInput({ msg: `O valor deve ser maior que ${min}.`, type: "greater_than", ctx: { gt: min } })
        : withInput({ msg: `O valor deve ser maior ou igual a ${min}.`, type: "greater_than_equal", ctx: { ge: min } });
    }
    case "invalid_value": {
      const expected = describeExpected(issue.values);
      return withInput({ msg: `O valor deve ser ${expected}.`, type: "enum", ctx: { expected } });
    }
    case "invalid_format": {
      const pattern =
        issue.format === "regex" && "pattern" in issue && typeof issue.pattern === "string"
          ? issue.pattern
          : issue.format;
      return withInput({
        msg: `O texto deve seguir o padrão ${pattern}.`,
        type: "string_pattern_mismatch",
        ctx: { pattern },
      });
    }
    case "invalid_union": {
      // A discriminated union whose tag is none of its options (pydantic's union_tag_invalid and its ctx).
      const { discriminator, options } = issue as { discriminator?: unknown; options?: unknown };
      if (typeof discriminator === "string" && Array.isArray(options)) {
        const expected = describeExpected(options as unknown[]);
        const tag = isTagged(input) ? input[discriminator] : undefined;
        if (tag === undefined)
          return withInput({
            msg: `Informe o campo ${discriminator}: ${expected}.`,
            type: "union_tag_not_found",
            ctx: { discriminator: `'${discriminator}'` },
          });
        // The issue is at the tag (`…, "type"`): it shows the tag, not the whole object.
        return {
          loc,
          msg: `O campo ${discriminator} deve ser ${expected}.`,
          type: "union_tag_invalid",
          input: tag,
          ctx: { discriminator: `'${discriminator}'`, tag: shownTag(tag), expected_tags: expected },
        };
      }
      return withInput({ msg: "O valor não corresponde a nenhum dos formatos aceitos.", type: "union_tag_invalid" });
    }
    case "custom": {
      // A rule across fields may say what it counted (`params`), as pydantic's ctx does.
      const params = issue.params;
      return params && Object.keys(params).length > 0
        ? withInput({ msg: issue.message, type: "value_error", ctx: { ...params } })
        : withInput({ msg: issue.message, type: "value_error" });
    }
    default:
      return withInput({ msg: issue.message, type: "value_error" });
  }
}

// A surrogate half without its other half: JSON's `\ud800` escapes decode to one, UTF-8 cannot encode it.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * One character PostgreSQL cannot store: U+0000 (text refuses it) or a lone surrogate (jsonb refuses it, text turns
 * it into U+FFFD). The one definition for the API's edge, Meta's webhook, the quarantine and campaign files.
 */
export const UNSTORABLE_CHARACTER = new RegExp(`\\u0000|${LONE_SURROGATE.source}`);
const UNSTORABLE_CHARACTERS = new RegExp(UNSTORABLE_CHARACTER.source, "g");

/** `value` with every unstorable character replaced by `by`. */
export function replaceUnstorable(value: string, by: string): string {
  return value.replace(UNSTORABLE_CHARACTERS, by);
}

/** Why `value` cannot be stored as text, or undefined when it can. */
export function unstorableTextReason(value: string): string | undefined {
  if (value.includes("\u0000")) return "O texto não pode conter o caractere nulo (U+0000).";
  if (LONE_SURROGATE.test(value)) return "O texto contém um caractere Unicode inválido (metade de um par substituto).";
  return undefined;
}

function collectUnstorable(value: unknown, loc: (string | number)[], issues: ValidationIssue[]): void {
  if (typeof value === "string") {
    const msg = unstorableTextReason(value);
    if (msg !== undefined) issues.push({ loc, msg, type: "value_error", input: value });
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => collectUnstorable(item, [...loc, index], issues));
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) collectUnstorable(item, [...loc, key], issues);
  }
}

/**
 * Validate one part of a request with its schema: the parsed value, or RequestValidationError (422). Every text that
 * was read must also be storable: no U+0000 and no lone surrogate (422 `value_error` at its `loc`). PostgreSQL text
 * cannot hold a NUL: one in an id made its lookup fail (a 500), and one in `client_ref` failed the commit of a send
 * the provider had already accepted. A lone surrogate is not Unicode: text columns turn it into U+FFFD (the
 * `client_ref` of later events would differ from the one sent) and jsonb refuses it. No field of the API needs
 * either, so they are refused before anything runs, for every endpoint at once.
 */
export function parseRequest<S extends z.ZodType>(schema: S, location: RequestLocation, value: unknown): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) {
    const issues: ValidationIssue[] = [];
    collectUnstorable(result.data, [location], issues);
    if (issues.length > 0) throw new RequestValidationError(issues);
    return result.data;
  }
  throw new RequestValidationError(
    result.error.issues.map((issue) => {
      const item = toValidationIssue(issue, location);
      // Coercion (query and path strings) reports NaN; the caller wants to see what they sent.
      if (typeof item.input === "number" && Number.isNaN(item.input)) item.input = valueAt(value, issue.path);
      return item;
    }),
  );
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = root;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
