import type { Request, RequestHandler, Response, Router } from "express";
import {
  errorResponse,
  internalError,
  jsonRequestBody,
  parseRequest,
  tooManyRequests,
  unauthorized,
  type ExampleName,
  type JsonResponse,
  type PublicOperation,
} from "@gw/contracts";
import type { ApiKeyScope } from "@gw/core/accounts";
import type { Actor } from "@gw/core/audit";
import { sendCsv, type CsvDownload } from "@gw/http";
import { z } from "@gw/config";
import type { ApiDeps } from "../container.ts";
import { apiActor, authOf, requireScope } from "../http/auth.ts";
import { jsonBody } from "../http/json-body.ts";

/**
 * One declaration per public route (Unkey's `createRoute` is the model): its method and path, what its request
 * carries, its responses and its handler, from which come both the Express route (behind the key and the rate limits)
 * and its OpenAPI operation. The request is parsed here, with the zod schemas the document shows: path, headers,
 * query, then body, each refusal a 422 `HTTPValidationError` (an unreadable body: 400).
 */

/** A public endpoint module: its routes, registered on the public router, and the OpenAPI operations describing them. */
export interface PublicRouteModule {
  register: (router: Router, deps: ApiDeps) => void;
  operations: readonly PublicOperation[];
}

/** A JSON request body: its schema (parsed, and shown with the examples of its `.meta({ examples })`). */
export interface JsonBody<B extends z.ZodType> {
  schema: B;
  /** Names of the schema's examples, in their order. */
  examples: readonly ExampleName[];
  /** Whether the document calls it required; default true. */
  required?: boolean;
  /** What an absent body is read as (`{}`: the same as an empty object); without it, an absent body is refused. */
  whenAbsent?: object;
  /** The body as the schema should read it, from the JSON that came (the send's kind selection, `selectSendKind`). */
  prepare?: (raw: unknown) => unknown;
}

/** What a route parses before its handler runs; the document shows the same schemas. */
export interface RouteRequest<P, Q, H, B> {
  params?: P;
  query?: Q;
  /** Header names as the document shows them (`Idempotency-Key`); read case-insensitively, handed over lower-cased. */
  headers?: H;
  body?: B extends z.ZodType ? JsonBody<B> : never;
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;
type LowerCaseKeys<T> = { [K in keyof T as Lowercase<K & string>]: T[K] };

export interface RouteInput<P, Q, H, B> {
  /** The API key's account (every public route is behind the key). */
  accountId: string;
  /** The API key as the services' audit trail names it, with the request's id. */
  actor: Actor;
  params: Parsed<P>;
  query: Parsed<Q>;
  headers: H extends z.ZodType ? LowerCaseKeys<z.output<H>> : undefined;
  body: Parsed<B>;
  req: Request;
  res: Response;
}

declare const answeredBrand: unique symbol;
/** Branded by a symbol no data carries, so no body can pass for it (and, unlike a unique symbol, it never widens). */
export type Answered = { readonly [answeredBrand]: true };
/** Returned by a handler that wrote its answer itself (a stream, a pre-rendered body). */
export const ANSWERED = Object.freeze({}) as Answered;

type Responses = PublicOperation["responses"];
type SuccessStatus = 200 | 201 | 202 | 203 | 206;
/** The route's one 2xx response (`successStatus` checks there is exactly one). */
type SuccessResponse<R extends Responses> = R[Extract<keyof R, SuccessStatus>];

/**
 * A handler's answer, typed by the route's own 2xx schema: the `data` of its `{success: true, data}` envelope (sent
 * with that status), or ANSWERED. A route whose 2xx is not JSON (a file, a CSV) can only answer ANSWERED, so a body
 * that does not match what the document promises fails to compile.
 */
export type Answer<R extends Responses> =
  (SuccessResponse<R> extends JsonResponse<infer S> ? EnvelopeData<z.input<S>> : never) | typeof ANSWERED;
type EnvelopeData<E> = E extends { success: true; data: infer D } ? D : never;

type OperationRequest = NonNullable<PublicOperation["request"]>;

export interface RouteSpec<P, Q, H, B, R extends Responses> {
  method: "get" | "post" | "patch" | "delete";
  /** The document's form, relative to the public prefix: `/campaigns/{campaign_id}` (Express gets `:campaign_id`). */
  path: string;
  operationId: string;
  /**
   * The API key scope the operation requires (issue 35; docs/decisions.md, "API key scopes"): checked after the key
   * and the rate limit, before the request is read (403 `insufficient_scope`), and stated by the document
   * (`x-required-scope`, the security requirement's scopes, a sentence of the description). Sends, read receipts and
   * campaign changes: `messages:send`; reads of windows, numbers, templates, media, deliveries and campaigns:
   * `messages:read`; orders: `orders:write`; uploads: `media:write`; integrations, the event types, retries and
   * replays of deliveries: `integrations:manage`; usage: `usage:read`.
   */
  scope: ApiKeyScope;
  summary: string;
  description: string;
  request?: RouteRequest<P, Q, H, B>;
  /**
   * For a request the handler reads itself (a body in two media types): how the document describes it and the
   * middleware that reads its body; nothing is parsed here.
   */
  ownRequest?: { documented: OperationRequest; readBody: RequestHandler };
  /**
   * Its own responses; 401, 429 and 500 are every public operation's (KEYED_RESPONSES), and 403 its scope's, unless
   * given here.
   */
  responses: R;
  handler(input: RouteInput<P, Q, H, B>, deps: ApiDeps): Promise<Answer<R>> | Answer<R>;
}

/**
 * What every public operation may answer, behind the key and the per-key rate limit: 401, 429 `api_rate_limited` and
 * 500. A route's own response for one of these replaces it (a send's 429 also names `rate_limited`).
 */
const KEYED_RESPONSES: PublicOperation["responses"] = {
  401: unauthorized,
  429: tooManyRequests(["api_rate_limited"]),
  500: internalError,
};

/** The 403 of an operation whose key lacks its scope. */
const scopeRefusal = (scope: ApiKeyScope) =>
  errorResponse(`The API key lacks the scope \`${scope}\` this operation requires (\`x-required-scope\`).`, [
    "insufficient_scope",
  ]);

/** `/campaigns/{campaign_id}` as Express writes it: `/campaigns/:campaign_id`. */
const expressPath = (path: string) => path.replace(/\{([A-Za-z0-9_]+)\}/g, ":$1");

/** The headers' object schema with its names lower-cased (as Node reads them), and those names. */
function lowerCased(headers: z.ZodType): { schema: z.ZodType; names: string[] } {
  if (!(headers instanceof z.ZodObject)) throw new Error("a route's headers must be a zod object");
  const shape = Object.entries(headers.shape as Record<string, z.ZodType>).map(
    ([name, schema]) => [name.toLowerCase(), schema] as const,
  );
  return { schema: z.object(Object.fromEntries(shape)), names: shape.map(([name]) => name) };
}

/** The status of the route's success: the one 2xx its responses declare. */
function successStatus(responses: PublicOperation["responses"], operationId: string): number {
  const statuses = Object.keys(responses)
    .map(Number)
    .filter((status) => status >= 200 && status <= 299);
  if (statuses.length !== 1) throw new Error(`${operationId}: declare exactly one 2xx response`);
  return statuses[0] as number;
}

/** What the body's schema parses: the JSON that came, or what an absent body stands for, as the route prepares it. */
function bodyToParse(body: JsonBody<z.ZodType>, raw: unknown): unknown {
  const value = raw === undefined && body.whenAbsent ? body.whenAbsent : raw;
  return body.prepare ? body.prepare(value) : value;
}

/** A route: registers its handler and declares its operation, from one declaration. */
export function defineRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  H extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends Responses = Responses,
>(spec: RouteSpec<P, Q, H, B, R>): PublicRouteModule {
  const { request = {}, ownRequest, scope } = spec;
  const body = request.body as JsonBody<z.ZodType> | undefined;
  const headers = request.headers === undefined ? undefined : lowerCased(request.headers);
  const status = successStatus(spec.responses, spec.operationId);
  const documented: OperationRequest | undefined =
    ownRequest?.documented ??
    (request.params || request.query || request.headers || body
      ? {
          ...(request.params ? { params: request.params as OperationRequest["params"] } : {}),
          ...(request.query ? { query: request.query as OperationRequest["query"] } : {}),
          ...(request.headers ? { headers: request.headers as OperationRequest["headers"] } : {}),
          ...(body
            ? { body: { ...jsonRequestBody(body.schema, body.examples), required: body.required ?? true } }
            : {}),
        }
      : undefined);
  const operation: PublicOperation = {
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: `${spec.description} Requires an API key with the scope \`${scope}\` (403 \`insufficient_scope\` otherwise).`,
    "x-required-scope": scope,
    ...(documented ? { request: documented } : {}),
    responses: { ...KEYED_RESPONSES, 403: scopeRefusal(scope), ...spec.responses },
  };
  const readBody = ownRequest?.readBody ?? (body ? jsonBody : undefined);

  async function handle(req: Request, res: Response, deps: ApiDeps): Promise<void> {
    const auth = authOf(req);
    const input = {
      accountId: auth.accountId,
      actor: apiActor(req),
      params: request.params ? parseRequest(request.params, "path", req.params) : undefined,
      headers: headers
        ? parseRequest(
            headers.schema,
            "header",
            Object.fromEntries(headers.names.map((name) => [name, req.header(name)])),
          )
        : undefined,
      query: request.query ? parseRequest(request.query, "query", req.query) : undefined,
      body: body ? parseRequest(body.schema, "body", bodyToParse(body, req.body)) : undefined,
      req,
      res,
    } as RouteInput<P, Q, H, B>;
    const answer = await spec.handler(input, deps);
    if (answer !== ANSWERED) res.status(status).json({ success: true, data: answer });
  }

  return {
    operations: [operation],
    register(router, deps) {
      const handler: RequestHandler = (req, res) => handle(req, res, deps);
      // The scope before the body: a key that may not call the operation never gets its body read.
      router[spec.method](expressPath(spec.path), requireScope(scope), ...(readBody ? [readBody] : []), handler);
    },
  };
}

/** The routes of one module, in the order they are registered (a fixed path before a parameter that would match it). */
export function routeModule(...routes: readonly PublicRouteModule[]): PublicRouteModule {
  return {
    operations: routes.flatMap((route) => route.operations),
    register(router, deps) {
      for (const route of routes) route.register(router, deps);
    },
  };
}

/** The 200 of a CSV export. */
const CSV_FILE: PublicOperation["responses"][number] = {
  description: "The CSV file.",
  content: { "text/csv": { schema: { type: "string" } } },
};

/**
 * A CSV export: a GET whose handler names the file (its name, its lines, the log fields of a download that ends
 * early) and gets it streamed (`sendCsv`); the 200 is documented as the CSV file.
 */
export function defineCsvExport<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
>(
  spec: Omit<RouteSpec<P, Q, undefined, undefined, Responses>, "method" | "handler" | "ownRequest"> & {
    handler(input: RouteInput<P, Q, undefined, undefined>, deps: ApiDeps): Promise<CsvDownload>;
  },
): PublicRouteModule {
  return defineRoute<P, Q, undefined, undefined, Responses>({
    ...spec,
    method: "get",
    responses: { 200: CSV_FILE, ...spec.responses },
    async handler(input, deps) {
      await sendCsv(input.res, await spec.handler(input, deps), deps.logger);
      return ANSWERED;
    },
  });
}
