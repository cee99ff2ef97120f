import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
  type RouteConfig,
} from "@asteasolutions/zod-to-openapi";
import { ERROR_REGISTRY, type ErrorCode } from "@gw/errors";
import { z } from "zod";
import { DeliveryOut } from "./deliveries.ts";
import { HeaderMediaIn, PixBoletoIn, PixItemIn, PixOrderIn, PixPaymentLinkIn } from "./messages.ts";
import {
  TemplateBodyOut,
  TemplateButtonOut,
  TemplateFooterOut,
  TemplateHeaderOut,
  TemplateItemOut,
  TemplateQualityOut,
} from "./templates.ts";

/**
 * What every OpenAPI operation of the public API shares: the error envelopes and their responses, the bearer
 * scheme, request examples, and the generation of the document from zod schemas (OpenAPI 3.1). Which operations
 * the document holds is not decided here: each route module of apps/api declares its own (`operations`), and the
 * API assembles the document from them (apps/api/src/openapi.ts); the webhooks are in ./webhooks.ts.
 */

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31["generateDocument"]>;
/** One operation as zod-to-openapi takes it (the webhooks'). */
export type OperationConfig = RouteConfig;
/** One public operation as its route module declares it: `path` is relative to the public prefix; the bearer
 * scheme and the tag are the document's to add. */
export type PublicOperation = Omit<RouteConfig, "security" | "tags">;
export type OperationResponse = ResponseConfig;

export const SECURITY_SCHEME = "ChaveDeApi";
export const PUBLIC_API_TAG = "public-api";
export const WEBHOOKS_TAG = "webhooks";

/** Spec 5: `Authorization: Bearer <API_KEY>`. */
export const BEARER_SECURITY_SCHEME = {
  type: "http",
  scheme: "bearer",
  description:
    "`Authorization: Bearer <API_KEY>`. A missing, invalid or revoked key yields 401 `invalid_api_key`. A key holds scopes (`messages:send`, `messages:read`, `orders:write`, `media:write`, `integrations:manage`, `usage:read`; a key made without a list holds them all); each operation names the one it requires (`x-required-scope`, and this requirement's scopes), and a key without it yields 403 `insufficient_scope`.",
} as const;

/** Spec 7: the envelope of every API error. `code` stays a plain string: new codes must not break clients. */
export const ErrorResponse = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.string().describe("Stable code: program against it"),
      message: z.string().describe("Portuguese sentence for a person"),
    }),
  })
  .meta({ id: "ErrorResponse" });

/** Spec 7: one item of `HTTPValidationError.detail` (the shape `RequestValidationError` renders). */
export const ValidationErrorItem = z
  .object({
    loc: z.array(z.union([z.string(), z.int()])).describe("Where: body, query, path or header, then the field path"),
    msg: z.string().describe("Portuguese sentence for a person"),
    type: z
      .string()
      .describe("Stable machine word: missing, string_too_long, too_long, int_parsing, enum, json_invalid, ..."),
    input: z.unknown().optional().describe("The value that was refused, when there was one"),
    ctx: z.record(z.string(), z.unknown()).optional().describe("Limits of the failed check, e.g. {max_length: 32}"),
  })
  .meta({ id: "ValidationError" });

export const HTTPValidationError = z
  .object({ detail: z.array(ValidationErrorItem) })
  .meta({ id: "HTTPValidationError" });

const errorRef = { $ref: "#/components/schemas/ErrorResponse" } as const;
export const validationRef = { $ref: "#/components/schemas/HTTPValidationError" } as const;

/** The envelope with `error.code` narrowed to what this operation can answer with this status. */
export function errorSchema(codes: readonly ErrorCode[]) {
  return {
    allOf: [
      errorRef,
      {
        type: "object" as const,
        properties: { error: { type: "object" as const, properties: { code: { enum: [...codes] } } } },
      },
    ],
  };
}

export function codeList(codes: readonly ErrorCode[]): string {
  return codes.map((code) => `\`${code}\``).join(", ");
}

/** Named examples built from the error registry, so the document shows the sentences the service sends. */
export function errorExamples(codes: readonly ErrorCode[]) {
  return Object.fromEntries(
    codes.map((code) => [code, { value: { success: false, error: { code, message: ERROR_REGISTRY[code].message } } }]),
  );
}

export function errorResponse(
  summary: string,
  codes: readonly ErrorCode[],
  headers?: ResponseConfig["headers"],
): ResponseConfig {
  return {
    description: `${summary} Codes: ${codeList(codes)}.`,
    ...(headers ? { headers } : {}),
    content: { "application/json": { schema: errorSchema(codes), examples: errorExamples(codes) } },
  };
}

const RetryAfterHeaders = z.object({
  "Retry-After": z.int().min(1).describe("Seconds to wait before repeating the request"),
});

/** The CSV exports' format, as their descriptions state it (core's `csvLine` with `RFC_CSV`). */
export const CSV_EXPORT_FORMAT =
  "RFC 4180 CSV: UTF-8 without a byte order mark, comma-separated, CRLF line ends, every text cell quoted, numbers bare. " +
  "Safe to open in a spreadsheet however it splits the line (on `,` or `;`, with quotes honoured or not): wherever a cell " +
  "could start inside a value (its start, and after a `,`, `;`, tab or line break in it), an apostrophe is put before " +
  "a formula start (`=`, `+`, `-`, `@`, tab, CR, also past quotes and blanks), and a negative number is written as such a text.";

export const unauthorized = errorResponse("API key missing, invalid or revoked.", ["invalid_api_key"]);
export const tooManyRequests = (codes: readonly ErrorCode[]) =>
  errorResponse("Too many requests; honour the `Retry-After` header.", codes, RetryAfterHeaders);
export const internalError = errorResponse("Unexpected failure; repeat later.", ["internal_error"]);
export const payloadTooLarge = errorResponse("Body above 256 KiB.", ["payload_too_large"]);
/** The HTTP layer could not read the request: an undecodable %-escape in a path parameter, a body that does not
 * inflate (Content-Encoding) or was cut short. */
export const unreadableRequest = (what: string) => errorResponse(`${what} cannot be read.`, ["bad_request"]);
/** A path parameter with an undecodable %-escape: the 400 of every route with one. */
export const unreadablePath = unreadableRequest("The path (an invalid %-escape)");
export const requestValidation = (what: string): ResponseConfig => ({
  description: `Request validation error (${what}); malformed JSON is \`json_invalid\`.`,
  content: { "application/json": { schema: validationRef } },
});
/** The refusals of a route on one resource named in its path: an unreadable path, a resource not in the account
 * (`notFound`), and what fails validation (`validated`: the path, or the path and the query). */
export const resourcePathRefusals = (notFound: ResponseConfig, validated = "path") => ({
  400: unreadablePath,
  404: notFound,
  422: requestValidation(validated),
});

/**
 * A status that is either a refusal (the error envelope with one of `codes`) or a request that does not validate
 * (`HTTPValidationError`), as a 422 often is; the examples show `exampleCodes`.
 */
export function refusalOrValidation(
  description: string,
  codes: readonly ErrorCode[],
  exampleCodes: readonly ErrorCode[] = codes,
): ResponseConfig {
  return {
    description,
    content: {
      "application/json": {
        schema: { anyOf: [errorSchema(codes), validationRef] },
        examples: errorExamples(exampleCodes),
      },
    },
  };
}

/** A JSON response whose schema's type it keeps: `defineRoute` types a handler's answer by its route's 2xx one. */
export interface JsonResponse<S extends z.ZodType> extends ResponseConfig {
  content: { "application/json": { schema: S } };
}

/** A JSON response with the given schema. */
export const jsonResponse = <S extends z.ZodType>(description: string, schema: S): JsonResponse<S> => ({
  description,
  content: { "application/json": { schema } },
});

export interface ExampleName {
  name: string;
  summary: string;
}

/** Request examples declared with `.meta({ examples })` on the request schema, as named media-type examples. */
export function requestExamples(schema: z.ZodType, names: readonly ExampleName[]) {
  const examples = (schema.meta()?.examples ?? []) as unknown[];
  return Object.fromEntries(
    examples.map((value, i) => {
      const named = names[i] ?? { name: `example_${i + 1}`, summary: `Example ${i + 1}` };
      return [named.name, { summary: named.summary, value }];
    }),
  );
}

/** A required JSON request body with its schema's examples, named in their order. */
export function jsonRequestBody(schema: z.ZodType, names: readonly ExampleName[]) {
  return {
    required: true,
    content: { "application/json": { schema, examples: requestExamples(schema, names) } },
  };
}

/**
 * Schemas with an id that other schemas embed. They are generated first so each component is the schema itself:
 * zod-to-openapi 9.1 names a component after the first use it meets, and a first `X.nullable()` use would make
 * the component X itself nullable. Also the components reached only through raw `$ref`s (error envelopes).
 */
const COMPONENTS_FIRST: readonly z.ZodType[] = [
  ErrorResponse,
  ValidationErrorItem,
  HTTPValidationError,
  HeaderMediaIn,
  PixItemIn,
  PixPaymentLinkIn,
  PixBoletoIn,
  PixOrderIn,
  TemplateQualityOut,
  TemplateHeaderOut,
  TemplateBodyOut,
  TemplateFooterOut,
  TemplateButtonOut,
  TemplateItemOut,
  DeliveryOut,
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `allOf: [$ref, {type: [..., "null"]}]`: the generator's nullable use of an already generated component. */
function isNullableRef(allOf: unknown): allOf is [Record<string, unknown>, Record<string, unknown>] {
  if (!Array.isArray(allOf) || allOf.length !== 2) return false;
  const [ref, extra] = allOf as unknown[];
  return (
    isRecord(ref) &&
    typeof ref.$ref === "string" &&
    isRecord(extra) &&
    Object.keys(extra).length === 1 &&
    Array.isArray(extra.type) &&
    extra.type.includes("null")
  );
}

/**
 * The generator writes a nullable use of an already generated component as `allOf: [$ref, {type: [..., "null"]}]`,
 * which refuses null (the `$ref` branch must hold too). Rewritten as `oneOf: [$ref, {type: "null"}]`, what the
 * same generator writes for 3.1 when the component is still being built.
 */
function fixNullableRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(fixNullableRefs);
  if (!isRecord(node)) return node;
  if (isNullableRef(node.allOf)) {
    const { allOf, ...rest } = node;
    const fixed = fixNullableRefs(rest);
    return { ...(isRecord(fixed) ? fixed : {}), oneOf: [allOf[0], { type: "null" }] };
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, fixNullableRefs(value)]));
}

export interface OpenApiDocumentParts {
  info: OpenApiDocument["info"];
  servers: NonNullable<OpenApiDocument["servers"]>;
  tags: NonNullable<OpenApiDocument["tags"]>;
  securitySchemes: Record<string, typeof BEARER_SECURITY_SCHEME>;
  /** Full paths, in the order the document lists them. */
  paths: readonly OperationConfig[];
  webhooks: readonly OperationConfig[];
}

/** Generates the OpenAPI 3.1 document from what the caller assembled (the API: apps/api/src/openapi.ts). */
export function generateOpenApiDocument(parts: OpenApiDocumentParts): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  for (const [name, scheme] of Object.entries(parts.securitySchemes)) {
    registry.registerComponent("securitySchemes", name, { ...scheme });
  }
  for (const path of parts.paths) registry.registerPath(path);
  for (const webhook of parts.webhooks) registry.registerWebhook(webhook);

  const generator = new OpenApiGeneratorV31([
    ...COMPONENTS_FIRST.map((schema) => ({ type: "schema" as const, schema })),
    ...registry.definitions,
  ]);
  const document = generator.generateDocument({
    openapi: "3.1.0",
    info: parts.info,
    servers: parts.servers,
    tags: parts.tags,
  });
  return fixNullableRefs(document) as OpenApiDocument;
}
