import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { Agent, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { parse as parseQuery } from "node:querystring";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import type { ValidateFunction } from "ajv/dist/2020.js";
import fc from "fast-check";
import { createAccount, createApiKey, revokeApiKey } from "@gw/core/accounts";
import { isErrorCode } from "@gw/errors";
import { signMetaPayload } from "@gw/signer";
import {
  APP_SECRET,
  VERIFY_TOKEN,
  contactWrites,
  createTestAccount,
  startTestGateway,
  type TestAccount,
  type TestGateway,
} from "@gw/test-stack";
import { testActor } from "@gw/testkit";
import { at, documentCompiler, isJson, type Json } from "./support/openapi-schema.ts";

// Property-based fuzzing of every public endpoint, the docs, the health checks and Meta's webhook (hardening issue:
// "0 × 5xx over at least 10,000 cases per run, every answer an envelope or HTTPValidationError"; `npm test` runs
// half of that, 5,000 cases with a fresh seed each run, to fit the suite in ten minutes; the full run is
// `FUZZ_SCALE=1 GW_SKIP_CHECKS=1 npm test -- apps/api/test/fuzz.endpoints.test.ts`). Requests go over
// node:http to the listening API (real PostgreSQL, Redis and the provider sandbox), so paths, headers and bytes are
// exactly the generated ones. Every operation of the served OpenAPI document is fuzzed (an endpoint added later
// too) and must be reached past the key check; its answers must have a status it documents and a body valid
// against the document's schema for that status. Anything else answers the envelope (422: HTTPValidationError);
// Meta's webhook answers its own JSON, computed here from what was sent; a send answered 200 must be recorded.
// Each property prints one line (cases, status histogram) for docs/reliability.md; a failure prints fast-check's
// seed and the shrunk request. FUZZ_SCALE multiplies the 10,000 cases of a full run: 1 is the full run, 10 a longer
// hunt; unset, 0.5.

const SCALE = Number(process.env.FUZZ_SCALE ?? 0.5);
const SEND_CASES = 4_000 * SCALE;
const PUBLIC_CASES = 3_000 * SCALE;
const WEBHOOK_CASES = 3_000 * SCALE;

// ---------------------------------------------------------------------------------------------------------------
// The wire

interface Wire {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body when the answer says it is JSON; `jsonError` when it says so and is not. */
  json?: unknown;
  jsonError?: string;
}

// Keep-alive, as integrators and Meta connect; a handler that never answers fails the case rather than the run.
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
const ANSWER_DEADLINE_MS = 15_000;

function exchange(baseUrl: string, wire: Wire): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method: wire.method, path: wire.path, headers: wire.headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const answer: Answer = { status: res.statusCode ?? 0, headers: res.headers, text };
          if (/^application\/json/.test(res.headers["content-type"] ?? "") && wire.method !== "HEAD") {
            try {
              answer.json = JSON.parse(text);
            } catch (error) {
              answer.jsonError = (error as Error).message;
            }
          }
          resolve(answer);
        });
      },
    );
    req.setTimeout(ANSWER_DEADLINE_MS, () => req.destroy(new Error(`no answer in ${ANSWER_DEADLINE_MS} ms`)));
    req.on("error", reject);
    req.end(wire.body);
  });
}

function describeCase(wire: Wire, answer?: Answer): string {
  const body = wire.body === undefined ? "" : wire.body.subarray(0, 600).toString("latin1");
  const sent = `${wire.method} ${wire.path.slice(0, 300)} ${JSON.stringify(wire.headers).slice(0, 400)} body[${wire.body?.length ?? 0}]=${JSON.stringify(body)}`;
  return answer === undefined ? sent : `${sent}\n  -> ${answer.status} ${answer.text.slice(0, 600)}`;
}

/** About the size of the request line and headers (Node refuses more than 16 KiB with a bare 431). */
function headerSectionBytes(wire: Wire): number {
  return Object.entries(wire.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, wire.path.length + 100);
}

class Histogram {
  private readonly counts = new Map<number, number>();
  cases = 0;

  add(status: number): void {
    this.cases++;
    this.counts.set(status, (this.counts.get(status) ?? 0) + 1);
  }

  has5xx(): boolean {
    return [...this.counts.keys()].some((status) => status >= 500);
  }

  line(name: string, startedAt: number): string {
    const statuses = [...this.counts.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}×${count}`)
      .join(" ");
    return `fuzz ${name}: ${this.cases} cases in ${((Date.now() - startedAt) / 1000).toFixed(1)} s, 5xx: ${this.has5xx() ? "YES" : "0"}; statuses ${statuses}`;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// What an answer may be

/** The served OpenAPI document's response schemas, compiled once each (ajv, JSON Schema 2020-12). */
class DocumentSchemas {
  private readonly compileSchema: (schema: unknown) => ValidateFunction;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    this.compileSchema = documentCompiler(document);
  }

  private compile(key: string, schema: unknown): ValidateFunction {
    let fn = this.cache.get(key);
    if (!fn) {
      fn = this.compileSchema(schema);
      this.cache.set(key, fn);
    }
    return fn;
  }

  /**
   * What the operation documents for `status`: its content types and the JSON schema, if any; undefined when the
   * operation does not document that status.
   */
  response(op: Operation, status: number): { contentTypes: string[]; validate?: ValidateFunction } | undefined {
    const responses = at(this.document, "paths", op.path, op.method, "responses");
    const response = responses[String(status)];
    if (!isJson(response)) return undefined;
    const content = isJson(response.content) ? response.content : {};
    const json = content["application/json"];
    return {
      contentTypes: Object.keys(content),
      ...(isJson(json) ? { validate: this.compile(`${op.method} ${op.path} ${status}`, json.schema) } : {}),
    };
  }

  /** Every operation of the document, with its parameters and request examples. */
  operations(): DocumentedOperation[] {
    return Object.entries(at(this.document, "paths")).flatMap(([path, item]) =>
      (["get", "post", "put", "patch", "delete"] as const).flatMap((method) => {
        const op = isJson(item) ? item[method] : undefined;
        if (!isJson(op)) return [];
        const params = (Array.isArray(op.parameters) ? op.parameters : []).filter(isJson).map((p) => ({
          name: String(p.name),
          in: String(p.in),
          values: isJson(p.schema) && Array.isArray(p.schema.enum) ? p.schema.enum.map(String) : [],
        }));
        const content = isJson(op.requestBody) && isJson(op.requestBody.content) ? op.requestBody.content : {};
        const json = content["application/json"];
        const examples = isJson(json) && isJson(json.examples) ? Object.values(json.examples) : [];
        return [
          {
            method,
            path,
            params,
            bodyTypes: Object.keys(content),
            examples: examples.filter(isJson).map((e) => e.value),
          },
        ];
      }),
    );
  }

  component(name: string): ValidateFunction {
    return this.compile(`component ${name}`, { $ref: `#/components/schemas/${name}` });
  }
}

/** A documented public operation, as the document names it. */
interface Operation {
  method: "get" | "post" | "put" | "patch" | "delete";
  path: string;
}

interface DocumentedOperation extends Operation {
  /** `in`: path, query or header; `values`: the schema's enum, if any. */
  params: { name: string; in: string; values: string[] }[];
  /** Content types of the request body (none: the operation takes no body). */
  bodyTypes: string[];
  examples: unknown[];
}

// A sentence: a capital letter, or a field name (`variable_names tem 1 nome...`), then a final stop.
const PORTUGUESE = /^([A-ZÀ-Ú]|[a-z_]+ )[\s\S]*[.!?]$/u;

/** Spec 7: the envelope (a registry code, a Portuguese sentence), or HTTPValidationError for a 422. */
function errorBodyProblem(schemas: DocumentSchemas, answer: Answer): string | undefined {
  if (answer.json === undefined) return `not JSON (${answer.headers["content-type"] ?? "no content-type"})`;
  if (answer.status === 422 && isJson(answer.json) && "detail" in answer.json) {
    const validate = schemas.component("HTTPValidationError");
    if (!validate(answer.json)) return `HTTPValidationError invalid: ${JSON.stringify(validate.errors)}`;
    return (answer.json.detail as unknown[]).length === 0 ? "HTTPValidationError without items" : undefined;
  }
  const validate = schemas.component("ErrorResponse");
  if (!validate(answer.json)) return `not the error envelope: ${JSON.stringify(validate.errors)}`;
  const error = (answer.json as { error: { code: string; message: string } }).error;
  if (!isErrorCode(error.code)) return `code ${error.code} is not in the registry`;
  if (!PORTUGUESE.test(error.message)) return `message is not a sentence: ${error.message}`;
  return undefined;
}

/** A documented operation: a status it documents and a body valid against that status's schema. */
function operationProblem(schemas: DocumentSchemas, op: Operation, wire: Wire, answer: Answer): string | undefined {
  const documented = schemas.response(op, answer.status);
  if (documented === undefined) return `${op.method.toUpperCase()} ${op.path} does not document ${answer.status}`;
  if (wire.method === "HEAD") return undefined;
  const contentType = answer.headers["content-type"] ?? "";
  if (!contentType.startsWith("application/json")) {
    // A documented answer that is not JSON (a CSV export).
    return documented.contentTypes.some((type) => contentType.startsWith(type))
      ? undefined
      : `content type ${contentType} is not documented for ${answer.status}`;
  }
  if (documented.validate === undefined) return `JSON is not documented for ${answer.status}`;
  if (answer.jsonError !== undefined || answer.json === undefined) return "the answer is not JSON";
  if (!documented.validate(answer.json))
    return `body does not match the documented schema: ${JSON.stringify(documented.validate.errors)}`;
  return answer.status >= 400 ? errorBodyProblem(schemas, answer) : undefined;
}

/**
 * Anything that is not a documented operation: an error is the envelope. Express answers OPTIONS on a known path
 * itself (200, `Allow`, the same list as its body), and a route reached through another spelling of its path
 * (case, trailing slash) answers its own success body.
 */
function genericProblem(schemas: DocumentSchemas, wire: Wire, answer: Answer): string | undefined {
  if (answer.status >= 400) return wire.method === "HEAD" ? undefined : errorBodyProblem(schemas, answer);
  if (wire.method === "OPTIONS" && answer.status === 200) {
    return answer.headers.allow !== undefined && answer.text === answer.headers.allow ? undefined : "OPTIONS answer";
  }
  if (answer.status >= 200 && answer.status < 300) {
    if (wire.method === "HEAD") return undefined;
    return isJson(answer.json) && answer.json.success === true ? undefined : "a 2xx that is not a success body";
  }
  return `unexpected status ${answer.status}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Arbitraries shared by the properties

const printable = (min: number, max: number) =>
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    minLength: min,
    maxLength: max,
  });
const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: length, maxLength: length });

/** Strings that trip naive code: NUL, lone surrogates, direction marks, SQL and template syntax, digits with NUL. */
const NASTY_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfffy",
  "\ufeff{}",
  "\u202eevil",
  "𝕏😀👍🏽",
  "null",
  "undefined",
  "NaN",
  "'; DROP TABLE messages;--",
  "${jndi:x}",
  "{{1}}",
  "%00",
  "%",
  "\n\t\r",
  "<script>alert(1)</script>",
  "5511987654321\u0000",
  "+55 (11) 98765-4321",
  "0".repeat(40),
];

/** Ordinary text with one odd character inside: passes every length check, then meets storage. */
const oddText = fc
  .tuple(fc.string({ maxLength: 12 }), fc.constantFrom("\u0000", "\u0000", "\ud800", "\udfff", "\u202e", "\ufffe"))
  .map(([text, odd]) => `${text}${odd}${text}`);

const nastyString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: oddText },
  { weight: 3, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.nat({ max: 5_000 }).map((n) => "x".repeat(n)) },
);

const HUGE_NUMBERS = [
  1e308,
  -1e308,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 63),
  2 ** 64,
  9.99e20,
  1e-300,
  0.5,
  -1,
  0,
  10,
  1000,
  1001,
];

/** A value where a field's value goes: JSON of any shape, nasty strings, huge numbers, a deeply nested list. */
const DEEP = "__fuzz_deep__";
const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 3, arbitrary: nastyString },
  { weight: 2, arbitrary: fc.constantFrom(...HUGE_NUMBERS) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [null], ["a"], { a: null }) },
  { weight: 1, arbitrary: fc.constantFrom(`${DEEP}50`, `${DEEP}20000`) },
);

/** JSON text of `value`; `"__fuzz_deep__N"` strings become N nested lists (deeper than JSON.stringify can go). */
function jsonText(value: unknown): string {
  const text = JSON.stringify(value) ?? "";
  return text.replace(new RegExp(`"${DEEP}(\\d+)"`, "g"), (_m, depth: string) => {
    const n = Number(depth);
    return "[".repeat(n) + "]".repeat(n);
  });
}

/** Raw bodies that are not one JSON value: cut, binary, BOM, encodings JSON does not allow. */
const rawBody: fc.Arbitrary<Buffer> = fc.oneof(
  fc
    .constantFrom(
      "",
      "{",
      '{"to":',
      "{'to':'11987654321'}",
      '{"to":"11987654321",}',
      "\ufeff{}",
      "NaN",
      "[1,2",
      '{"a":1}{"b":2}',
      "\u0000",
      '{"to":"\\ud800"}',
      '{"to":"\\u0000"}',
      '{"__proto__":{"x":1},"to":"11987654321","text":"oi"}',
      '{"to":"11987654321","to":"x"}',
      "1e999999",
      "-",
      '"\\x"',
    )
    .map((s) => Buffer.from(s, "utf8")),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc.string({ unit: "binary", maxLength: 200 }).map((s) => Buffer.from(s, "utf16le")),
  fc.string({ maxLength: 100 }).map((s) => Buffer.from(s, "latin1")),
  fc.constantFrom(100_000, 300_000).map((depth) => Buffer.from("[".repeat(depth) + "]".repeat(depth))),
);

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=UTF-16",
  "application/json; charset=latin1",
  "application/json; charset=nonsense",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "*/*",
  "application/json;;;",
  "garbage",
  "",
];

type Encoding = "none" | "gzip" | "deflate" | "br" | "gzip-broken" | "identity" | "x-unknown" | "gzip, gzip";

const encoding: fc.Arbitrary<Encoding> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Encoding>("none") },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Encoding>("gzip", "deflate", "br", "gzip-broken", "identity", "x-unknown", "gzip, gzip"),
  },
);

function encodeBody(body: Buffer, how: Encoding): { body: Buffer; headers: Record<string, string> } {
  switch (how) {
    case "none":
      return { body, headers: {} };
    case "gzip":
      return { body: gzipSync(body), headers: { "Content-Encoding": "gzip" } };
    case "deflate":
      return { body: deflateSync(body), headers: { "Content-Encoding": "deflate" } };
    case "br":
      return { body: brotliCompressSync(body), headers: { "Content-Encoding": "br" } };
    case "gzip-broken":
      return { body: gzipSync(body).subarray(0, 12), headers: { "Content-Encoding": "gzip" } };
    default:
      return { body, headers: { "Content-Encoding": how } };
  }
}

/** Headers a client may add: content type, encoding, and the odd extra header. */
const bodyHeaders = fc.record({
  contentType: fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined, freq: 4 }),
  encoding,
  extra: fc.option(
    fc.constantFrom<Record<string, string>>(
      { Accept: "text/html" },
      { Accept: "application/xml;q=1, */*;q=0" },
      { "Accept-Encoding": "gzip, br" },
      { "X-Forwarded-For": "1.2.3.4, 10.0.0.1" },
      { "X-Request-Id": "x".repeat(300) },
      { "X-Request-Id": "\u00e7\u00e3o" },
      { Cookie: "a=b; c" },
      { Range: "bytes=0-10" },
      { "If-None-Match": "*" },
      { "Transfer-Encoding": "chunked" },
    ),
    { nil: undefined, freq: 3 },
  ),
});

function withBody(
  headers: Record<string, string>,
  extraHeaders: { contentType?: string; encoding: Encoding; extra?: Record<string, string> },
  body: Buffer,
): { headers: Record<string, string>; body: Buffer } {
  const encoded = encodeBody(body, extraHeaders.encoding);
  const all = { ...headers, ...encoded.headers, ...extraHeaders.extra };
  if (extraHeaders.contentType !== undefined) all["Content-Type"] = extraHeaders.contentType;
  if (all["Transfer-Encoding"] === undefined) all["Content-Length"] = String(encoded.body.length);
  return { headers: all, body: encoded.body };
}

/** A path segment: mostly percent-encoded text, sometimes escapes that do not decode, sometimes very long. */
const segment = fc.oneof(
  {
    weight: 4,
    arbitrary: nastyString
      .filter((s) => s.length > 0)
      .map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, "?"))),
  },
  { weight: 2, arbitrary: printable(1, 30).map((s) => s.replace(/[/?#% ]/g, "_")) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "%",
      "%zz",
      "%E0%A4%A",
      "55%zz",
      "%00",
      "%2F",
      "%2e%2e",
      "..",
      ".",
      "%C0%AF",
      "%ff%fe",
      ";x=1",
      "a%20b",
    ),
  },
  { weight: 1, arbitrary: fc.nat({ max: 8_000 }).map((n) => "9".repeat(n + 1)) },
);

/** A query string from pairs; values percent-encoded or raw garbage. */
function queryString(pairs: [string, string][]): string {
  return pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => `${k}=${v}`).join("&")}`;
}

const queryValue = (meaningful: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 4, arbitrary: meaningful.map((v) => encodeURIComponent(v)) },
    { weight: 2, arbitrary: nastyString.map((v) => encodeURIComponent(v.replace(/[\ud800-\udfff]/g, "?"))) },
    { weight: 1, arbitrary: fc.constantFrom("%", "%zz", "+", "%2B5", "a&b", "=", "%E0%A4%A") },
  );

// ---------------------------------------------------------------------------------------------------------------
// The gateway under test

interface Fixture {
  gateway: TestGateway;
  schemas: DocumentSchemas;
  main: TestAccount;
  other: TestAccount;
  keys: { valid: string; other: string; noNumber: string; revoked: string };
  /** Contacts that wrote to main's number: free text to them reaches the sandbox. */
  openContacts: string[];
  /** wamids of messages main sent: statuses about them go through the status machine. */
  wamids: string[];
  /** wamids of the messages contacts wrote to main and to other: read receipts mark them (or refuse other's). */
  inbound: { own: string[]; other: string[] };
  deliveries: { own: string[]; other: string[] };
  /** Every operation of the served document. */
  operations: DocumentedOperation[];
}

const UNREACHABLE = "5511900000001";
const OPEN_CONTACTS = ["5511987650101", "5511987650102", "5511987650103"];

let fx: Fixture;

async function setUp(): Promise<Fixture> {
  const gateway = await startTestGateway({
    env: {
      // Every case must reach the handler: neither limit may turn the run into 429s.
      API_RATE_LIMIT_POINTS: "1000000",
      API_AUTH_FAILURES_PER_IP: "1000000",
      META_WEBHOOK_BODY_LIMIT_BYTES: "65536",
    },
    sandbox: { unreachable: [UNREACHABLE], autoStatuses: false },
  });
  // The integration points nowhere: no dispatcher runs, deliveries stay as the test sets them.
  const main = await createTestAccount(gateway.db, { integrationUrl: "http://127.0.0.1:9/fuzz" });
  const other = await createTestAccount(gateway.db, { integrationUrl: "http://127.0.0.1:9/fuzz-other" });
  const bare = await createAccount(
    { db: gateway.db },
    { actor: testActor, name: `fuzz-sem-numero-${randomBytes(3).toString("hex")}` },
  );
  const noNumber = await createApiKey({ db: gateway.db }, { actor: testActor, accountId: bare.id });
  const revoked = await createApiKey({ db: gateway.db }, { actor: testActor, accountId: main.accountId });
  await revokeApiKey({ db: gateway.db }, { actor: testActor, keyId: revoked.id });

  const ownInbound: string[] = [];
  for (const from of OPEN_CONTACTS) {
    const wrote = await contactWrites(gateway, { phone_number_id: main.phoneNumberId, from, type: "text", text: "oi" });
    ownInbound.push(wrote.id);
  }
  const otherInbound = await contactWrites(gateway, {
    phone_number_id: other.phoneNumberId,
    from: OPEN_CONTACTS[0],
    type: "text",
    text: "oi",
  });

  const wamids: string[] = [];
  for (const to of ["5511987650201", "5511987650202"]) {
    const res = await exchange(gateway.apiUrl, {
      method: "POST",
      path: "/public/v1/messages",
      headers: { ...main.auth, "Content-Type": "application/json" },
      body: Buffer.from(
        JSON.stringify({ to, template: "pedido_confirmado", variables: ["Maria", "1", "2"], header_text: "1" }),
      ),
    });
    expect(res.status).toBe(200);
    wamids.push((res.json as { data: { message_id: string } }).data.message_id);
  }

  // Deliveries of every status, so detail and retry reach each branch (retry: 200 or delivery_not_retryable).
  const ids = async (accountId: string) =>
    (
      await gateway.db.sql.query<{ id: string }>(`SELECT id::text FROM deliveries WHERE account_id = $1 ORDER BY id`, [
        accountId,
      ])
    ).rows.map((r) => r.id);
  const own = await ids(main.accountId);
  expect(own.length).toBeGreaterThanOrEqual(3);
  await gateway.db.sql.query(
    `UPDATE deliveries SET status = CASE WHEN id = $1::bigint THEN 'failed' WHEN id = $2::bigint THEN 'delivered' ELSE status END WHERE id IN ($1::bigint, $2::bigint)`,
    [own[0], own[1]],
  );

  const otherDeliveries = await ids(other.accountId);
  expect(otherDeliveries.length).toBeGreaterThanOrEqual(1);

  const served = await exchange(gateway.apiUrl, { method: "GET", path: "/public/v1/openapi.json", headers: {} });
  const schemas = new DocumentSchemas(served.json as Json);
  return {
    gateway,
    schemas,
    operations: schemas.operations(),
    main,
    other,
    keys: { valid: main.apiKey, other: other.apiKey, noNumber: noNumber.key, revoked: revoked.key },
    openContacts: OPEN_CONTACTS,
    wamids,
    inbound: { own: ownInbound, other: [otherInbound.id] },
    deliveries: { own, other: otherDeliveries },
  };
}

/** Authorization values: the valid key most of the time, then every way a key can be wrong. */
function authorization(validWeight: number): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: validWeight, arbitrary: fc.constant(`Bearer ${fx.keys.valid}`) },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        undefined,
        "",
        "Bearer",
        "Bearer ",
        `bearer ${fx.keys.valid}`,
        `Bearer   ${fx.keys.valid}   `,
        `Bearer ${fx.keys.valid} extra`,
        `Basic ${Buffer.from(`x:${fx.keys.valid}`).toString("base64")}`,
        `Bearer ${fx.keys.other}`,
        `Bearer ${fx.keys.noNumber}`,
        `Bearer ${fx.keys.revoked}`,
        `Bearer ${fx.keys.valid.slice(0, -1)}`,
        `Bearer ${fx.keys.valid}\u00e7`,
        "Bearer pt_live_",
        "Bearer sk_live_abc",
      ),
    },
    { weight: 1, arbitrary: printable(0, 80).map((s) => `Bearer pt_live_${s.replace(/\s/g, "")}`) },
    { weight: 1, arbitrary: printable(0, 120) },
  );
}

function authHeaders(auth: string | undefined): Record<string, string> {
  return auth === undefined ? {} : { Authorization: auth };
}

// ---------------------------------------------------------------------------------------------------------------
// POST /public/v1/messages

// A reference is taken once per account (issue 28: a second order with it is 409 order_reference_taken): each
// generated Pix send names its own.
let pixReferences = 0;
const pixOrder = () => ({
  reference_id: `pedido-${++pixReferences}`,
  pix_code: "00020101021226700014br.gov.bcb.pix2548pix",
  merchant_name: "Loja Exemplo",
  key: "39580525000189",
  key_type: "CNPJ",
  items: [{ name: "Bolo", amount: 5000, quantity: 1, retailer_id: "bolo" }],
  total_amount: 5000,
  tax: 0,
  goods_type: "physical-goods",
});

/** Valid sends of every kind: free text, templates with header/media/buttons, named variables, Pix. */
function validSends(to: string): Json[] {
  return [
    { to, text: "Olá! Seu pedido saiu.", client_ref: "pedido-1" },
    {
      to,
      text: "Resposta",
      reply_to_message_id: "wamid.HBgLNTUxMTk4NzY1NDMyMRUCABIYFDNBMDdBNjE",
      interactive: { type: "button" },
    },
    { to, template: "pedido_confirmado", language: "pt_BR", variables: ["Maria", "12345", "3"], header_text: "12345" },
    { to, template: "pedido_confirmado", language: "en_US", variables: ["Mary", "12345", "3"], header_text: "12345" },
    {
      to,
      template: "promo_imagem",
      variables: ["Maria", "20%"],
      header_media: { type: "image", link: "https://exemplo.com.br/p.jpg" },
    },
    {
      to,
      template: "boleto_documento",
      variables: ["Maria", "10/12"],
      header_media: { link: "https://exemplo.com.br/b.pdf", filename: "boleto.pdf" },
    },
    {
      to,
      template: "lembrete_consulta",
      variable_names: ["nome", "data", "hora"],
      variables: ["Maria", "10/12", "14:30"],
    },
    { to, template: "codigo_verificacao", variables: ["123456"], otp_code: "123456" },
    { to, template: "cupom_desconto", variables: ["PROMO10", "10%"], coupon_code: "PROMO10", coupon_index: 1 },
    { to, template: "rastreio_pedido", variables: ["ABC123"], button_url_param: "ABC123" },
    { to, template: "cobranca_pix", variables: ["Maria", "12345"], pix_order: pixOrder() },
    { to, template: "vitrine_carrossel", variables: ["Maria"] },
    { to, template: "nao_existe", variables: [] },
  ];
}

const SEND_FIELDS = [
  "to",
  "phone_number_id",
  "text",
  "template",
  "language",
  "variables",
  "variable_names",
  "header_media",
  "header_text",
  "button_url_param",
  "button_url_index",
  "coupon_code",
  "coupon_index",
  "otp_code",
  "otp_index",
  "reply_to_message_id",
  "pix_order",
  "client_ref",
];

const NESTED_PATHS: (string | number)[][] = [
  ["pix_order", "items", 0, "amount"],
  ["pix_order", "items", 0, "quantity"],
  ["pix_order", "items", 0, "name"],
  ["pix_order", "items"],
  ["pix_order", "key_type"],
  ["pix_order", "goods_type"],
  ["pix_order", "total_amount"],
  ["pix_order", "pix_code"],
  ["header_media", "link"],
  ["header_media", "type"],
  ["header_media", "filename"],
  ["variables", 0],
  ["variables", 25],
  ["variable_names", 0],
  ["interactive", "action", "buttons"],
];

type Mutation = { op: "set"; path: (string | number)[]; value: unknown } | { op: "delete"; path: (string | number)[] };

const fieldPath = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...SEND_FIELDS).map((f) => [f]) },
  { weight: 3, arbitrary: fc.constantFrom(...NESTED_PATHS) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("__proto__", "constructor", "interactive", "type", "messaging_product", "")
      .map((f) => [f]),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }).map((f) => [f]) },
);

/** One text of a valid send changed, the body still valid: the odd text goes as far as a valid one. */
const retext: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constant("set" as const),
  path: fc.constantFrom<(string | number)[]>(
    ["client_ref"],
    ["client_ref"],
    ["phone_number_id"],
    ["text"],
    ["header_text"],
    ["button_url_param"],
    ["coupon_code"],
    ["otp_code"],
    ["reply_to_message_id"],
    ["variables", 0],
    ["pix_order", "reference_id"],
    ["pix_order", "merchant_name"],
    ["header_media", "filename"],
  ),
  value: fc.oneof({ weight: 3, arbitrary: oddText }, { weight: 1, arbitrary: nastyString }),
});

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant("set" as const), path: fieldPath, value: weirdValue }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("delete" as const), path: fieldPath }) },
);

function valueAt(value: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown> | undefined)?.[key], value);
}

/** Applies mutations to a copy; keys such as `__proto__` become own properties, as JSON.parse makes them. */
function mutate(base: Json, mutations: Mutation[]): unknown {
  const copy = JSON.parse(JSON.stringify(base)) as Json;
  for (const m of mutations) {
    let node: unknown = copy;
    for (const key of m.path.slice(0, -1)) {
      if (!isJson(node) && !Array.isArray(node)) break;
      const container = node as Record<string | number, unknown>;
      if (typeof container[key] !== "object" || container[key] === null) {
        Object.defineProperty(container, key, { value: {}, enumerable: true, writable: true, configurable: true });
      }
      node = container[key];
    }
    const last = m.path.at(-1);
    if (last === undefined || (!isJson(node) && !Array.isArray(node))) continue;
    if (m.op === "delete") delete (node as Record<string | number, unknown>)[last];
    else
      Object.defineProperty(node, last, {
        value: structuredClone(m.value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return copy;
}

function recipients(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...fx.openContacts) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("+55 11 98765-0101", "(11) 98765-0102", "011 98765-0103", "5511987650101\u0000"),
    },
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 9_999 }).map((n) => `551198765${String(n).padStart(4, "0")}`) },
    { weight: 1, arbitrary: fc.constantFrom(UNREACHABLE, "12345", "551187654321", "+1 415 555 0100", "0", "") },
  );
}

function sendBodies(): fc.Arbitrary<Buffer> {
  const mutated = fc
    .record({
      to: recipients(),
      base: fc.nat({ max: 100 }),
      phone: fc.constantFrom<"default" | "own" | "other" | "random">(
        "default",
        "default",
        "default",
        "own",
        "other",
        "random",
      ),
      mutations: fc.oneof(
        { weight: 1, arbitrary: fc.constant<Mutation[]>([]) },
        { weight: 2, arbitrary: fc.array(retext, { minLength: 1, maxLength: 2 }) },
        { weight: 3, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 4 }) },
      ),
    })
    .map(({ to, base, phone, mutations }) => {
      const sends = validSends(to);
      const body = sends[base % sends.length] ?? {};
      if (phone === "own") body.phone_number_id = fx.main.phoneNumberId;
      if (phone === "other") body.phone_number_id = fx.other.phoneNumberId;
      if (phone === "random") body.phone_number_id = "1" + "2".repeat(14);
      return Buffer.from(jsonText(mutate(body, mutations)), "utf8");
    });
  return fc.oneof(
    { weight: 8, arbitrary: mutated },
    { weight: 2, arbitrary: fc.jsonValue().map((v) => Buffer.from(jsonText(v), "utf8")) },
    { weight: 1, arbitrary: fc.anything().map((v) => Buffer.from(jsonText(v), "utf8")) },
    { weight: 2, arbitrary: rawBody },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          `{"to":"5511987650101","variables":[${"[".repeat(20_000)}${"]".repeat(20_000)}]}`,
          `{"to":"5511987650101","text":"oi","pix_order":{"items":${"[".repeat(20_000)}${"]".repeat(20_000)}}}`,
          `{"to":${"[".repeat(20_000)}${"]".repeat(20_000)}}`,
          `{"to":"5511987650101","text":"${"a".repeat(300_000)}"}`,
          `{"to":"5511987650101","client_ref":"x","text":"oi","variables":[${'"a",'.repeat(5_000)}"a"]}`,
        )
        .map((s) => Buffer.from(s, "utf8")),
    },
  );
}

const IDEMPOTENCY_POOL = ["fuzz-key-1", "fuzz-key-2", "fuzz-key-3", "fuzz-key-4"];

const idempotencyKey: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.constantFrom(...IDEMPOTENCY_POOL) },
  { weight: 2, arbitrary: printable(1, 80) },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "\u00e7\u00e3o", "x".repeat(64), "x".repeat(65), "\t") },
);

// ---------------------------------------------------------------------------------------------------------------
// The other public routes, the docs, the health checks and unknown routes

interface PublicCase {
  wire: Wire;
  /** The documented operation the request reaches; undefined for anything else (generic rules). */
  op?: Operation;
  kind: "public" | "docs" | "health";
}

/** Ids the API handed out during the run (a created resource's `data.id`): later cases address them. */
const handedOut: string[] = [];

function harvestId(answer: Answer): void {
  const data = isJson(answer.json) ? answer.json.data : undefined;
  if (answer.status < 300 && isJson(data) && typeof data.id === "string" && handedOut.length < 50)
    handedOut.push(encodeURIComponent(data.id));
}

/**
 * The path of a node of `value`, reached by following `indices` through its own keys (list positions, fields);
 * with `toLeaf`, the indices are reused until a leaf (a string, a number...) is reached.
 */
function pathInto(value: unknown, indices: number[], toLeaf = false): (string | number)[] {
  const path: (string | number)[] = [];
  let node = value;
  for (let step = 0; step < (toLeaf ? 8 : indices.length); step++) {
    const keys: (string | number)[] = Array.isArray(node)
      ? node.map((_, i) => i)
      : isJson(node)
        ? Object.keys(node)
        : [];
    const key = keys[(indices[step % indices.length] ?? 0) % Math.max(keys.length, 1)];
    if (key === undefined) break;
    path.push(key);
    node = (node as Record<string | number, unknown>)[key];
  }
  return path;
}

/** A CSV upload: a header of known and unknown columns, rows of phones, texts and odd values. */
const csvBody = fc
  .tuple(
    fc.subarray(["to", "variable_1", "variable_2", "client_ref", "header_text", "button_url_index", "x"], {
      minLength: 0,
    }),
    fc.array(fc.array(fc.oneof(fc.constantFrom(...OPEN_CONTACTS, "11987654321", "", '"a,b"', '"'), nastyString)), {
      maxLength: 6,
    }),
  )
  .map(([columns, rows]) => Buffer.from([columns.join(","), ...rows.map((row) => row.join(","))].join("\r\n"), "utf8"));

/**
 * Any operation the served document lists (so an endpoint added later is fuzzed too): its path parameters
 * filled with ids of this account, of another, handed out during the run, random or undecodable; its query
 * parameters with their enum values or anything; its body from its own examples, mutated, or anything else.
 */
function documentedCases(
  auth: fc.Arbitrary<string | undefined>,
  intLike: fc.Arbitrary<string>,
  only?: DocumentedOperation,
): fc.Arbitrary<PublicCase> {
  const pathValue = fc
    .oneof(
      { weight: 2, arbitrary: fc.uuid() },
      { weight: 2, arbitrary: fc.nat().map((i) => handedOut[i % Math.max(handedOut.length, 1)] ?? "1") },
      { weight: 1, arbitrary: fc.constantFrom(...fx.deliveries.own, ...fx.deliveries.other) },
      { weight: 1, arbitrary: intLike.map((v) => encodeURIComponent(v)) },
      { weight: 1, arbitrary: segment },
    )
    .filter((value) => value.length > 0);
  const queryValue = fc.oneof(
    intLike,
    nastyString,
    fc.uuid(),
    fc.constantFrom("2026-01-01T00:00:00Z", "2099-12-31", "amanhã", "true", "ALL", "draft", "running"),
  );
  // `retext` keeps the shape valid and changes one text: what reaches storage with an odd string in it.
  const at = fc.array(fc.nat(), { minLength: 1, maxLength: 4 });
  const retext = fc.record({
    op: fc.constant("retext" as const),
    at,
    value: fc.oneof({ weight: 3, arbitrary: oddText }, { weight: 1, arbitrary: nastyString }),
  });
  const edit = fc.oneof(
    fc.record({ op: fc.constant("set" as const), at, value: weirdValue }),
    retext,
    fc.record({ op: fc.constant("delete" as const), at }),
  );
  const body = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("example" as const),
        index: fc.nat(),
        edits: fc.oneof(fc.array(retext, { minLength: 1, maxLength: 2 }), fc.array(edit, { maxLength: 3 })),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("raw" as const),
        bytes: fc.oneof(
          fc.jsonValue().map((v) => Buffer.from(jsonText(v))),
          rawBody,
        ),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("csv" as const), bytes: csvBody }) },
  );
  return fc
    .record({
      auth,
      // Operations that take a body weigh more: there a value travels furthest (to storage, to the provider).
      op: only
        ? fc.constant(only)
        : fc.oneof(
            ...fx.operations.map((op) => ({ weight: op.bodyTypes.length > 0 ? 3 : 1, arbitrary: fc.constant(op) })),
          ),
      pathValues: fc.array(pathValue, { minLength: 3, maxLength: 3 }),
      query: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean(), queryValue), { maxLength: 4 }),
      body,
      headers: bodyHeaders,
    })
    .map(({ auth, op, pathValues, query, body, headers }): PublicCase => {
      let next = 0;
      const path = op.path.replace(/\{[^}]+\}/g, () => pathValues[next++ % pathValues.length] ?? "1");
      const params = op.params.filter((p) => p.in === "query");
      const pairs = query.map(([name, pick, useEnum, value]): [string, string] => {
        const param = params[name % (params.length + 1)];
        const known =
          param && useEnum && param.values.length > 0 ? param.values[pick % param.values.length] : undefined;
        return [param?.name ?? "x", encodeURIComponent((known ?? value).replace(/[\ud800-\udfff]/g, "?"))];
      });
      const wire: Wire = {
        method: op.method.toUpperCase(),
        path: `${path}${queryString(pairs)}`,
        headers: authHeaders(auth),
      };
      if (op.method === "get" || op.method === "delete") return { kind: "public", op, wire };
      let bytes: Buffer;
      let contentType: string | undefined;
      if (body.kind === "example") {
        const example = op.examples[body.index % Math.max(op.examples.length, 1)] ?? {};
        const edits = [...body.edits].flatMap((e): Mutation[] => {
          if (e.op === "delete") return [{ op: "delete", path: pathInto(example, e.at) }];
          if (e.op === "set") return [{ op: "set", path: pathInto(example, e.at), value: e.value }];
          const leaf = pathInto(example, e.at, true);
          return typeof valueAt(example, leaf) === "string" ? [{ op: "set", path: leaf, value: e.value }] : [];
        });
        bytes = Buffer.from(jsonText(isJson(example) ? mutate(example, edits) : example));
      } else {
        bytes = body.bytes;
        if (body.kind === "csv") contentType = "text/csv";
      }
      const sent = withBody(wire.headers, contentType ? { ...headers, contentType } : headers, bytes);
      return { kind: "public", op, wire: { ...wire, ...sent } };
    });
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"] as const;

/** Integers as path and query values, and what a parser may mistake for one. */
const INT_LIKE = fc.oneof(
  fc.integer({ min: -5, max: 300 }).map(String),
  fc.constantFrom(
    "0",
    "-1",
    "1e3",
    "0x5",
    " 5 ",
    "5.0",
    "",
    "99999999999999999999",
    "9007199254740991",
    "9223372036854775808",
    "abc",
    "+7",
    "٣",
  ),
);

/**
 * One case of each documented operation with the valid key, run before the random ones: with 36 operations, the
 * random draws alone could leave one unreached past the key check.
 */
function operationExamples(): PublicCase[] {
  return fx.operations.map((op, index) => {
    const [c] = fc.sample(documentedCases(fc.constant(`Bearer ${fx.keys.valid}`), INT_LIKE, op), {
      numRuns: 1,
      seed: index,
    });
    if (!c) throw new Error(`no case for ${op.method} ${op.path}`);
    return c;
  });
}

function publicCases(): fc.Arbitrary<PublicCase> {
  const intLike = INT_LIKE;
  const auth = authorization(8);
  const phoneLike = fc.oneof(
    fc.constantFrom(...fx.openContacts, "11987654321", "+55 11 98765-4321", "(11) 8765-4321", "0", "1".repeat(33)),
    fc.string({ maxLength: 40 }),
  );
  const numberId = fc.oneof(
    fc.constantFrom(fx.main.phoneNumberId, fx.other.phoneNumberId, "", "1".repeat(65)),
    fc.string({ maxLength: 20 }),
  );
  // Never empty: `/deliveries/` is the list and `/deliveries//retry` no route at all.
  const deliveryId = fc
    .oneof(
      { weight: 3, arbitrary: fc.constantFrom(...fx.deliveries.own) },
      { weight: 2, arbitrary: fc.constantFrom(...fx.deliveries.other) },
      { weight: 2, arbitrary: intLike.map((v) => encodeURIComponent(v)) },
      { weight: 1, arbitrary: segment },
    )
    .filter((id) => id.length > 0);

  const body = fc.tuple(
    bodyHeaders,
    fc.oneof(
      fc.jsonValue().map((v) => Buffer.from(jsonText(v))),
      rawBody,
    ),
  );

  const validate = fc
    .record({
      auth,
      to: fc.oneof(phoneLike, weirdValue),
      country: fc.oneof(fc.constantFrom(undefined, "BR", "US", "br", "", "BRA", null), weirdValue),
      raw: fc.option(rawBody, { nil: undefined, freq: 4 }),
      headers: bodyHeaders,
    })
    .map(({ auth, to, country, raw, headers }): PublicCase => {
      const sent = raw ?? Buffer.from(jsonText(country === undefined ? { to } : { to, country }));
      return {
        kind: "public",
        op: { method: "post", path: "/public/v1/validate" },
        wire: { method: "POST", path: "/public/v1/validate", ...withBody(authHeaders(auth), headers, sent) },
      };
    });

  const window = fc
    .record({
      auth,
      to: fc.oneof(
        phoneLike.filter((s) => s.length > 0).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, "?"))),
        segment,
      ),
      query: fc.array(
        fc.tuple(fc.constantFrom("phone_number_id", "phone_number_id", "status", "x"), queryValue(numberId)),
        { maxLength: 3 },
      ),
      head: fc.boolean(),
    })
    .map(({ auth, to, query, head }): PublicCase => ({
      kind: "public",
      op: { method: "get", path: "/public/v1/window/{to}" },
      wire: {
        method: head ? "HEAD" : "GET",
        path: `/public/v1/window/${to}${queryString(query)}`,
        headers: authHeaders(auth),
      },
    }));

  const templates = fc
    .record({
      auth,
      query: fc.array(
        fc.tuple(
          fc.constantFrom("status", "status", "phone_number_id", "limit"),
          queryValue(
            fc.oneof(
              fc.constantFrom("APPROVED", "ALL", "PENDING", "REJECTED", "approved", "all", "x".repeat(33)),
              numberId,
            ),
          ),
        ),
        { maxLength: 3 },
      ),
    })
    .map(({ auth, query }): PublicCase => ({
      kind: "public",
      op: { method: "get", path: "/public/v1/templates" },
      wire: { method: "GET", path: `/public/v1/templates${queryString(query)}`, headers: authHeaders(auth) },
    }));

  const list = fc
    .record({
      auth,
      query: fc.array(
        fc.tuple(
          fc.constantFrom("status", "limit", "before_id", "before_id", "cursor"),
          queryValue(
            fc.oneof(
              fc.constantFrom("pending", "delivering", "delivered", "failed", "FAILED", "all"),
              intLike,
              fc.constantFrom(...fx.deliveries.own),
            ),
          ),
        ),
        { maxLength: 4 },
      ),
    })
    .map(({ auth, query }): PublicCase => ({
      kind: "public",
      op: { method: "get", path: "/public/v1/deliveries" },
      wire: { method: "GET", path: `/public/v1/deliveries${queryString(query)}`, headers: authHeaders(auth) },
    }));

  const detail = fc.record({ auth, id: deliveryId }).map(({ auth, id }): PublicCase => ({
    kind: "public",
    op: { method: "get", path: "/public/v1/deliveries/{delivery_id}" },
    wire: { method: "GET", path: `/public/v1/deliveries/${id}`, headers: authHeaders(auth) },
  }));

  // Both retries take no body: whatever is sent is ignored.
  const retry = fc
    .record({ auth, id: deliveryId, body: fc.option(body, { nil: undefined }) })
    .map(({ auth, id, body }): PublicCase => ({
      kind: "public",
      op: { method: "post", path: "/public/v1/deliveries/{delivery_id}/retry" },
      wire: {
        method: "POST",
        path: `/public/v1/deliveries/${id}/retry`,
        ...(body ? withBody(authHeaders(auth), body[0], body[1]) : { headers: authHeaders(auth) }),
      },
    }));

  const retryFailed = fc
    .record({ auth, body: fc.option(body, { nil: undefined }) })
    .map(({ auth, body }): PublicCase => ({
      kind: "public",
      op: { method: "post", path: "/public/v1/deliveries/retry-failed" },
      wire: {
        method: "POST",
        path: "/public/v1/deliveries/retry-failed",
        ...(body ? withBody(authHeaders(auth), body[0], body[1]) : { headers: authHeaders(auth) }),
      },
    }));

  // Read receipts: main's messages (marked, repeated, typing limited), other's (404), sent ones, anything.
  const markRead = fc
    .record({
      auth,
      // Wamids are base64 (`/`, `+`, `=`): percent-encoded in the path; a segment comes as it is.
      id: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...fx.inbound.own).map(encodeURIComponent) },
        { weight: 1, arbitrary: fc.constantFrom(...fx.inbound.other, ...fx.wamids).map(encodeURIComponent) },
        { weight: 1, arbitrary: segment },
      ),
      body: fc.oneof(
        { weight: 2, arbitrary: fc.constant(undefined) },
        {
          weight: 3,
          arbitrary: fc
            .tuple(bodyHeaders, fc.constantFrom({ typing: true }, { typing: false }, {}, { typing: "sim" }, null))
            .map(([headers, value]): [typeof headers, Buffer] => [headers, Buffer.from(jsonText(value))]),
        },
        { weight: 1, arbitrary: body },
      ),
    })
    .map(({ auth, id, body }): PublicCase => ({
      kind: "public",
      op: { method: "post", path: "/public/v1/messages/{message_id}/read" },
      wire: {
        method: "POST",
        path: `/public/v1/messages/${id}/read`,
        ...(body ? withBody(authHeaders(auth), body[0], body[1]) : { headers: authHeaders(auth) }),
      },
    }));

  // Other methods and other spellings of the known paths, and paths nobody serves.
  const KNOWN = [
    "/public/v1/messages",
    "/public/v1/messages/x/read",
    "/public/v1/validate",
    "/public/v1/window/11987654321",
    "/public/v1/templates",
    "/public/v1/deliveries",
    "/public/v1/deliveries/1",
    "/public/v1/deliveries/1/retry",
    "/public/v1/deliveries/retry-failed",
  ];
  const elsewhere = fc
    .record({
      auth,
      method: fc.constantFrom(...METHODS),
      path: fc.oneof(
        fc.constantFrom(...KNOWN),
        fc.constantFrom(...KNOWN).map((p) => p.toUpperCase()),
        fc.constantFrom(...KNOWN).map((p) => `${p}/`),
        fc.constantFrom(...KNOWN).map((p) => `/${p}`),
        fc.constantFrom(
          "/public/v1",
          "/public/v1/",
          "/public/v2/messages",
          "/public/v1/%2e%2e/healthz",
          "/public/v1/messages;x",
          "/",
          "/metrics",
          "/admin/queues",
          "/favicon.ico",
        ),
        fc.array(segment, { minLength: 1, maxLength: 4 }).map((segments) => `/public/v1/${segments.join("/")}`),
        fc.array(segment, { minLength: 1, maxLength: 3 }).map((segments) => `/${segments.join("/")}`),
      ),
      body: fc.option(body, { nil: undefined, freq: 2 }),
    })
    .map(({ auth, method, path, body }): PublicCase => ({
      kind: "public",
      wire: {
        method,
        path,
        ...(body && method !== "GET" && method !== "HEAD"
          ? withBody(authHeaders(auth), body[0], body[1])
          : { headers: authHeaders(auth) }),
      },
    }));

  const DOCS = [
    "/docs",
    "/docs/",
    "/docs/swagger-initializer.js",
    "/docs/assets/swagger-ui.css",
    "/docs/assets/swagger-ui-bundle.js",
    "/docs/assets/favicon-32x32.png",
    "/docs/assets/index.html",
    "/docs/assets/..%2Fpackage.json",
    "/docs/assets/%2e%2e%2fpackage.json",
    "/public/v1/openapi.json",
  ];
  const docs = fc
    .record({
      method: fc.constantFrom("GET", "GET", "GET", "HEAD", "POST", "OPTIONS", "DELETE"),
      path: fc.oneof(
        fc.constantFrom(...DOCS),
        segment.map((s) => `/docs/assets/${s}`),
      ),
      conditional: fc.option(
        fc.constantFrom<Record<string, string>>(
          { Range: "bytes=0-99" },
          { Range: "bytes=999999999-" },
          { Range: "bytes=5-1" },
          { Range: "bytes=0-1,3-4,6-7" },
          { Range: "lines=1-2" },
          { "If-Match": '"outra"' },
          { "If-None-Match": "*" },
          { "If-None-Match": 'W/"x"' },
          { "If-Modified-Since": "Thu, 01 Jan 2099 00:00:00 GMT" },
          { "If-Unmodified-Since": "Thu, 01 Jan 1970 00:00:00 GMT" },
          { "If-Range": '"x"', Range: "bytes=0-1" },
          { "Accept-Encoding": "gzip" },
        ),
        { nil: undefined },
      ),
      auth: fc.option(auth, { nil: undefined }),
    })
    .map(({ method, path, conditional, auth }): PublicCase => ({
      kind: "docs",
      wire: { method, path, headers: { ...authHeaders(auth ?? undefined), ...conditional } },
    }));

  const health = fc
    .record({
      method: fc.constantFrom(...METHODS),
      path: fc.constantFrom("/healthz", "/readyz", "/healthz/", "/readyz?x=1", "/HEALTHZ"),
    })
    .map(({ method, path }): PublicCase => ({ kind: "health", wire: { method, path, headers: {} } }));

  return fc.oneof(
    { weight: 10, arbitrary: documentedCases(auth, intLike) },
    { weight: 3, arbitrary: validate },
    { weight: 3, arbitrary: window },
    { weight: 2, arbitrary: templates },
    { weight: 2, arbitrary: list },
    { weight: 2, arbitrary: detail },
    { weight: 2, arbitrary: retry },
    { weight: 1, arbitrary: retryFailed },
    { weight: 2, arbitrary: markRead },
    { weight: 3, arbitrary: elsewhere },
    { weight: 2, arbitrary: docs },
    { weight: 1, arbitrary: health },
  );
}

function docsProblem(wire: Wire, answer: Answer): string | undefined {
  if (answer.status >= 400) return wire.method === "HEAD" ? undefined : errorBodyProblem(fx.schemas, answer);
  if (answer.status === 304 || answer.status === 206) return undefined;
  if (answer.status === 200) {
    if (wire.method === "OPTIONS") return answer.headers.allow === undefined ? "OPTIONS without Allow" : undefined;
    if (wire.path === "/public/v1/openapi.json" && wire.method === "GET")
      return isJson(answer.json) && answer.json.openapi === "3.1.0" ? undefined : "the document is not served";
    return undefined;
  }
  return `unexpected status ${answer.status}`;
}

function healthProblem(wire: Wire, answer: Answer): string | undefined {
  if (answer.status >= 400) return wire.method === "HEAD" ? undefined : errorBodyProblem(fx.schemas, answer);
  if (wire.method === "OPTIONS") return answer.status === 200 ? undefined : `unexpected status ${answer.status}`;
  if (answer.status !== 200) return `unexpected status ${answer.status}`;
  if (wire.method === "HEAD") return undefined;
  const ok = [{ status: "ok" }, { status: "ready", checks: { postgres: "up", redis: "up" } }];
  return ok.some((body) => JSON.stringify(body) === JSON.stringify(answer.json)) ? undefined : "health body";
}

// ---------------------------------------------------------------------------------------------------------------
// Meta's webhook

interface WebhookCase {
  wire: Wire;
  /** What the webhook must answer, computed from what is sent. */
  expected: { status: number; body?: unknown; text?: string };
}

const metaTimestamp = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1_600_000_000, max: 1_900_000_000 }).map(String) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("17000000000000", "-1", "0", "abc", "", "1e10", "99999999999999999999999999999999"),
  },
  { weight: 1, arbitrary: weirdValue },
);

function metaPayloads(): fc.Arbitrary<unknown> {
  const wamid = fc.oneof(
    fc.constantFrom(...fx.wamids),
    hex(24).map((h) => `wamid.${h}`),
    fc.constantFrom("", "x".repeat(600), "wamid.\u0000", "wamid.\ud800"),
  );
  const contact = fc.oneof(fc.constantFrom(...fx.openContacts, "5511987650999"), fc.string({ maxLength: 20 }));
  const numberId = fc.oneof(
    { weight: 4, arbitrary: fc.constant(fx.main.phoneNumberId) },
    { weight: 1, arbitrary: fc.constantFrom(fx.other.phoneNumberId, "999", "", "\u0000", "\ud800", "x".repeat(70)) },
    { weight: 1, arbitrary: weirdValue },
  );
  const text = fc.oneof(fc.string({ maxLength: 50 }), nastyString);
  const status = fc.record(
    {
      id: wamid,
      status: fc.oneof(
        fc.constantFrom("sent", "delivered", "read", "failed", "deleted", "warning", "SENT"),
        nastyString,
      ),
      timestamp: metaTimestamp,
      recipient_id: contact,
      errors: fc.array(
        fc.record(
          {
            code: fc.oneof(fc.constantFrom(131026, 131047, 130429, 131053, 0, -1), weirdValue),
            title: text,
            message: text,
            error_data: fc.record({ details: text }, { requiredKeys: [] }),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 2 },
      ),
      conversation: fc.record({ id: hex(8), origin: fc.record({ type: fc.constantFrom("service", "utility") }) }),
      pricing: fc.record({ billable: fc.boolean(), category: fc.constantFrom("service", "utility") }),
    },
    { requiredKeys: ["id", "status"] },
  );
  const media = fc.record(
    {
      id: hex(10),
      mime_type: fc.constantFrom("image/jpeg", "application/pdf", "x".repeat(300)),
      caption: text,
      filename: text,
      sha256: hex(8),
    },
    { requiredKeys: [] },
  );
  const inbound = fc.record(
    {
      from: contact,
      id: wamid,
      timestamp: metaTimestamp,
      type: fc.oneof(
        fc.constantFrom(
          "text",
          "image",
          "audio",
          "video",
          "document",
          "sticker",
          "button",
          "interactive",
          "reaction",
          "location",
          "unsupported",
          "contacts",
          "order",
        ),
        nastyString,
      ),
      text: fc.record({ body: text }, { requiredKeys: [] }),
      image: media,
      document: media,
      audio: media,
      button: fc.record({ text, payload: text }, { requiredKeys: [] }),
      interactive: fc.record(
        {
          type: fc.constantFrom("button_reply", "list_reply", "nfm_reply"),
          button_reply: fc.record({ id: text, title: text }, { requiredKeys: [] }),
          list_reply: fc.record({ id: text, title: text, description: text }, { requiredKeys: [] }),
        },
        { requiredKeys: [] },
      ),
      context: fc.record({ id: wamid, from: contact }, { requiredKeys: [] }),
      reaction: fc.record({ message_id: wamid, emoji: fc.constantFrom("👍", "") }),
      errors: fc.array(fc.record({ code: fc.constant(131051), title: text }), { maxLength: 1 }),
    },
    { requiredKeys: ["from", "id", "timestamp", "type"] },
  );
  const messagesChange = fc.record({
    field: fc.constant("messages"),
    value: fc.record(
      {
        messaging_product: fc.constant("whatsapp"),
        metadata: fc.record(
          { display_phone_number: fc.constant("551140000000"), phone_number_id: numberId },
          { requiredKeys: [] },
        ),
        contacts: fc.array(
          fc.record({ wa_id: contact, profile: fc.record({ name: text }, { requiredKeys: [] }) }, { requiredKeys: [] }),
          { maxLength: 2 },
        ),
        messages: fc.array(inbound, { maxLength: 3 }),
        statuses: fc.array(status, { maxLength: 4 }),
      },
      { requiredKeys: ["messaging_product"] },
    ),
  });
  const templateChange = fc.oneof(
    fc.record({
      field: fc.constant("message_template_status_update"),
      value: fc.record(
        {
          event: fc.constantFrom("APPROVED", "REJECTED", "PAUSED", "DISABLED", "PENDING_DELETION", ""),
          message_template_id: fc.oneof(
            fc.constantFrom(1000000000000001, 2 ** 60, -1, 1.5),
            fc.constantFrom("1000000000000001", "abc"),
          ),
          message_template_name: fc.oneof(fc.constantFrom("pedido_confirmado", "cupom_desconto"), text),
          message_template_language: fc.constantFrom("pt_BR", "en_US", ""),
          reason: fc.oneof(fc.constantFrom("NONE", "INVALID_FORMAT", null), text),
        },
        { requiredKeys: [] },
      ),
    }),
    fc.record({
      field: fc.constant("message_template_quality_update"),
      value: fc.record(
        {
          previous_quality_score: fc.constantFrom("GREEN", "YELLOW"),
          new_quality_score: fc.oneof(fc.constantFrom("RED", "UNKNOWN", ""), text),
          message_template_id: fc.constantFrom(1000000000000001, "1000000000000008"),
          message_template_name: fc.constantFrom("pedido_confirmado", "cupom_desconto"),
          message_template_language: fc.constant("pt_BR"),
        },
        { requiredKeys: [] },
      ),
    }),
  );
  const otherChange = fc.record({
    field: fc.oneof(fc.constantFrom("phone_number_quality_update", "account_update"), weirdValue),
    value: weirdValue,
  });
  const payload = fc.record(
    {
      object: fc.oneof(fc.constant("whatsapp_business_account"), weirdValue),
      entry: fc.array(
        fc.record(
          {
            id: fc.oneof(fc.constant(fx.main.wabaId), weirdValue),
            time: fc.oneof(fc.integer({ min: 1_600_000_000, max: 1_900_000_000 }), weirdValue),
            changes: fc.array(
              fc.oneof(
                { weight: 6, arbitrary: messagesChange },
                { weight: 1, arbitrary: templateChange },
                { weight: 1, arbitrary: otherChange },
              ),
              { maxLength: 3 },
            ),
          },
          { requiredKeys: ["changes"] },
        ),
        { maxLength: 3 },
      ),
    },
    { requiredKeys: ["entry"] },
  );
  // Then a few nodes anywhere in it replaced with odd values (a list where an object goes, a number for a string...).
  return fc.tuple(payload, fc.array(fc.tuple(fc.nat(), weirdValue), { maxLength: 3 })).map(([value, replacements]) =>
    // Copies: generated values share constants (the same `[]` in many cases), which must never be edited.
    replacements.reduce(
      (acc, [index, replacement]) => replaceNode(acc, index, structuredClone(replacement)),
      structuredClone(value) as unknown,
    ),
  );
}

/** Replaces the `index`-th node (depth first, modulo the node count) of a JSON value. */
function replaceNode(root: unknown, index: number, replacement: unknown): unknown {
  const nodes: { parent: Record<string | number, unknown>; key: string | number }[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach((child, i) => (nodes.push({ parent: node as never, key: i }), walk(child)));
    else if (isJson(node))
      Object.entries(node).forEach(([k, child]) => (nodes.push({ parent: node, key: k }), walk(child)));
  };
  walk(root);
  const target = nodes[index % Math.max(nodes.length, 1)];
  if (target) target.parent[target.key] = replacement;
  return root;
}

type Signature = "valid" | "valid-upper" | "other-body" | "random" | "missing" | "malformed" | "other-secret";

function webhookCases(): fc.Arbitrary<WebhookCase> {
  const verification = fc
    .record({
      mode: fc.option(
        fc.oneof(fc.constantFrom("subscribe", "unsubscribe", "SUBSCRIBE", ""), fc.string({ maxLength: 10 })),
        { nil: undefined },
      ),
      token: fc.option(
        fc.oneof(
          { weight: 3, arbitrary: fc.constant(VERIFY_TOKEN) },
          { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
        ),
        { nil: undefined },
      ),
      challenge: fc.option(
        fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom("1158201444", "%", "<b>x</b>", "a+b", "")),
        { nil: undefined },
      ),
      repeat: fc.constantFrom<"none" | "hub.mode" | "hub.verify_token" | "hub.challenge">(
        "none",
        "none",
        "none",
        "hub.mode",
        "hub.verify_token",
        "hub.challenge",
      ),
      method: fc.constantFrom("GET", "GET", "HEAD"),
    })
    .map(({ mode, token, challenge, repeat, method }): WebhookCase => {
      const pairs: [string, string][] = [];
      if (mode !== undefined) pairs.push(["hub.mode", mode]);
      if (token !== undefined) pairs.push(["hub.verify_token", token]);
      if (challenge !== undefined) pairs.push(["hub.challenge", challenge]);
      const repeated = pairs.find(([k]) => k === repeat);
      if (repeated) pairs.push(repeated);
      const query = pairs.map(([k, v]) => `${k}=${encodeURIComponent(v.replace(/[\ud800-\udfff]/g, "?"))}`).join("&");
      // Read the query as Express does (node:querystring) to know what the handler sees.
      const seen = parseQuery(query);
      const accepted =
        seen["hub.mode"] === "subscribe" &&
        seen["hub.verify_token"] === VERIFY_TOKEN &&
        typeof seen["hub.challenge"] === "string";
      const text = accepted ? (seen["hub.challenge"] as string) : "Forbidden";
      return {
        wire: { method, path: `/provider/meta/webhook${query ? `?${query}` : ""}`, headers: {} },
        expected: { status: accepted ? 200 : 403, ...(method === "GET" ? { text } : {}) },
      };
    });

  const body = fc.oneof(
    { weight: 6, arbitrary: metaPayloads().map((v) => Buffer.from(jsonText(v), "utf8")) },
    { weight: 2, arbitrary: fc.jsonValue().map((v) => Buffer.from(jsonText(v), "utf8")) },
    { weight: 1, arbitrary: rawBody.filter((b) => b.length <= 65_536) },
    { weight: 1, arbitrary: fc.constantFrom(70_000, 200_000).map((n) => Buffer.from(`{"entry":"${"x".repeat(n)}"}`)) },
  );
  const signed = fc
    .record({
      body,
      signature: fc.constantFrom<Signature>(
        "valid",
        "valid",
        "valid",
        "valid",
        "valid-upper",
        "other-body",
        "random",
        "missing",
        "malformed",
        "other-secret",
      ),
      malformed: fc.constantFrom(
        "sha1=abc",
        "sha256=",
        `sha256=${"0".repeat(63)}`,
        `sha256=${"g".repeat(64)}`,
        `SHA256=${"0".repeat(64)}`,
        `sha256=${"0".repeat(64)} `,
        "sha256=ção",
      ),
      random: hex(64),
      encoding: fc.constantFrom<"none" | "gzip" | "gzip-broken" | "x-unknown">(
        "none",
        "none",
        "none",
        "none",
        "none",
        "gzip",
        "gzip-broken",
        "x-unknown",
      ),
      contentType: fc.constantFrom(
        "application/json",
        "application/json",
        "text/plain",
        "",
        "application/x-www-form-urlencoded",
      ),
    })
    .map(({ body, signature, malformed, random, encoding, contentType }): WebhookCase => {
      const valid = signMetaPayload(APP_SECRET, body);
      const header: Record<Signature, string | undefined> = {
        valid,
        "valid-upper": `sha256=${valid.slice(7).toUpperCase()}`,
        "other-body": signMetaPayload(APP_SECRET, Buffer.concat([body, Buffer.from(" ")])),
        random: `sha256=${random}`,
        missing: undefined,
        malformed,
        "other-secret": signMetaPayload("outro-segredo", body),
      };
      const sent = encodeBody(body, encoding);
      const headers: Record<string, string> = { ...sent.headers, "Content-Length": String(sent.body.length) };
      if (contentType) headers["Content-Type"] = contentType;
      // Unsigned requests are answered and closed without reading the body: keep theirs small, so the answer is
      // not lost to a reset while a large body is still being written.
      const unsigned = signature === "missing" || signature === "malformed";
      const signatureHeader = header[unsigned && sent.body.length > 16_384 ? "random" : signature];
      if (signatureHeader !== undefined) headers["X-Hub-Signature-256"] = signatureHeader;
      return {
        wire: { method: "POST", path: "/provider/meta/webhook", headers, body: sent.body },
        expected: expectedWebhook(body, signatureHeader, encoding),
      };
    });

  return fc.oneof({ weight: 1, arbitrary: verification }, { weight: 5, arbitrary: signed });
}

/** Meta's webhook contract: 401 before the body without a well-formed header; then size, inflation, signature, JSON. */
function expectedWebhook(body: Buffer, signature: string | undefined, encoding: string): WebhookCase["expected"] {
  // Node drops the blanks around a header's value.
  signature = signature?.trim();
  if (!/^sha256=[0-9a-f]{64}$/i.test(signature ?? "")) return { status: 401, body: { error: "invalid signature" } };
  if (encoding === "gzip-broken" || encoding === "x-unknown")
    return { status: 400, body: { error: "unreadable body" } };
  if (body.length > 65_536) return { status: 413, body: { error: "body too large" } };
  // The signature is checked over the bytes read (inflated), in either case of hex.
  if (signature?.toLowerCase() !== signMetaPayload(APP_SECRET, body))
    return { status: 401, body: { error: "invalid signature" } };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return { status: 400, body: { error: "malformed body" } };
  }
  return isJson(parsed) ? { status: 200 } : { status: 400, body: { error: "malformed body" } };
}

function webhookProblem(c: WebhookCase, answer: Answer): string | undefined {
  if (answer.status !== c.expected.status) return `expected ${c.expected.status}`;
  if (c.expected.text !== undefined) {
    if (answer.text !== Buffer.from(c.expected.text).toString("utf8")) return "the verification answer differs";
    return /^text\/plain/.test(answer.headers["content-type"] ?? "")
      ? undefined
      : "the verification answer is not text/plain";
  }
  if (c.wire.method !== "POST") return undefined;
  if (c.expected.body !== undefined)
    return JSON.stringify(answer.json) === JSON.stringify(c.expected.body) ? undefined : "unexpected body";
  // The counts may grow (a new kind of item); each is a count.
  const body = answer.json;
  const ok =
    isJson(body) &&
    body.received === true &&
    typeof body.duplicate === "boolean" &&
    ["statuses", "messages", "deliveries", "quarantined"].every((k) => k in body) &&
    Object.entries(body).every(
      ([k, v]) => k === "received" || k === "duplicate" || (Number.isInteger(v) && (v as number) >= 0),
    );
  return ok ? undefined : "not the webhook's acknowledgement";
}

// ---------------------------------------------------------------------------------------------------------------
// The properties

async function run<C>(
  name: string,
  cases: fc.Arbitrary<C>,
  numRuns: number,
  wireOf: (c: C) => Wire,
  problemOf: (c: C, answer: Answer, wire: Wire) => string | undefined | Promise<string | undefined>,
  examples: C[] = [],
): Promise<void> {
  const histogram = new Histogram();
  const startedAt = Date.now();
  try {
    await fc.assert(
      // A counterexample prints as the request, not as the bytes of a 300 KB buffer.
      fc.asyncProperty(
        cases.map((c) => Object.assign(c as object, { [fc.toStringMethod]: () => describeCase(wireOf(c)) }) as C),
        async (c) => {
          const wire = wireOf(c);
          const answer = await exchange(fx.gateway.apiUrl, wire);
          histogram.add(answer.status);
          const problem =
            answer.status >= 500
              ? "a 5xx"
              : answer.status === 431 && headerSectionBytes(wire) > 16_000
                ? undefined // Node's own refusal of a header section over 16 KiB, before the app sees it
                : await problemOf(c, answer, wire);
          if (problem !== undefined) throw new Error(`${problem}\n  ${describeCase(wire, answer)}`);
        },
      ),
      { numRuns, examples: examples.map((example) => [example]) },
    );
  } finally {
    console.log(histogram.line(name, startedAt));
  }
  expect(histogram.has5xx()).toBe(false);
}

describe("fuzzing every public and provider endpoint: no 5xx, every answer documented", () => {
  beforeAll(async () => {
    fx = await setUp();
  }, 60_000);
  afterAll(async () => {
    agent.destroy();
    await fx.gateway.close();
  });

  it(
    `POST /public/v1/messages: ${SEND_CASES} sends (mutated valid bodies, any JSON, raw bytes, odd headers)`,
    async () => {
      const cases = fc.record({
        auth: authorization(10),
        key: idempotencyKey,
        body: sendBodies(),
        headers: bodyHeaders,
      });
      await run(
        "POST /public/v1/messages",
        cases,
        SEND_CASES,
        (c) => {
          const base = { ...authHeaders(c.auth), ...(c.key === undefined ? {} : { "Idempotency-Key": c.key }) };
          return { method: "POST", path: "/public/v1/messages", ...withBody(base, c.headers, c.body) };
        },
        async (_c, answer, wire) => {
          const problem = operationProblem(fx.schemas, { method: "post", path: "/public/v1/messages" }, wire, answer);
          if (problem !== undefined || answer.status !== 200) return problem;
          // An accepted send is recorded before it is answered (the database is up: not even through the journal).
          const messageId = (answer.json as { data: { message_id: string } }).data.message_id;
          const { rowCount } = await fx.gateway.db.sql.query(`SELECT 1 FROM messages WHERE wamid = $1`, [messageId]);
          return rowCount === 1 ? undefined : `answered 200, but message ${messageId} was not recorded`;
        },
      );
    },
    180_000 * SCALE,
  );

  it(
    `every documented operation, the other routes, the docs, health and unknown routes: ${PUBLIC_CASES} requests`,
    async () => {
      // Authenticated answers per documented operation: each one must have been reached past the key check.
      const reached = new Map(fx.operations.map((op) => [`${op.method.toUpperCase()} ${op.path}`, 0]));
      await run(
        `other public routes (${fx.operations.length} documented operations), docs, health, unknown routes`,
        publicCases(),
        PUBLIC_CASES,
        (c) => c.wire,
        (c, answer) => {
          if (c.kind === "docs") return docsProblem(c.wire, answer);
          if (c.kind === "health") return healthProblem(c.wire, answer);
          if (!c.op) return genericProblem(fx.schemas, c.wire, answer);
          const key = `${c.op.method.toUpperCase()} ${c.op.path}`;
          if (answer.status !== 401 && reached.has(key)) reached.set(key, (reached.get(key) ?? 0) + 1);
          harvestId(answer);
          return operationProblem(fx.schemas, c.op, c.wire, answer);
        },
        operationExamples(),
      );
      expect([...reached].filter(([, count]) => count === 0).map(([key]) => key)).toEqual([]);
    },
    180_000 * SCALE,
  );

  it(
    `Meta's webhook: ${WEBHOOK_CASES} verifications and signed, badly signed and unsigned events`,
    async () => {
      await run("provider webhook", webhookCases(), WEBHOOK_CASES, (c) => c.wire, webhookProblem);
    },
    180_000 * SCALE,
  );
});
