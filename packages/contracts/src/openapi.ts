import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
  type RouteConfig,
} from "@asteasolutions/zod-to-openapi";
import { ERROR_REGISTRY, type ErrorCode } from "@gw/errors";
import { z } from "zod";
import {
  DeliveriesQuery,
  DeliveryDetailOut,
  DeliveryListOut,
  DeliveryOut,
  DeliveryPath,
  RetryFailedOut,
  RetryOut,
} from "./deliveries.ts";
import {
  HeaderMediaIn,
  IdempotencyKeyHeader,
  PixItemIn,
  PixOrderIn,
  PublicSendIn,
  SendResultOut,
  TemplatesQuery,
  ValidateIn,
  ValidateOut,
  WindowOut,
  WindowPath,
  WindowQuery,
} from "./messages.ts";
import {
  TemplateBodyOut,
  TemplateButtonOut,
  TemplateCatalogueOut,
  TemplateFooterOut,
  TemplateHeaderOut,
  TemplateItemOut,
  TemplateQualityOut,
} from "./templates.ts";
import { MessageReceivedEvent, MessageStatusEvent, WebhookRequestHeaders } from "./webhooks.ts";

/**
 * The OpenAPI 3.1 description of the public API (spec sections 2, 4, 5, 6, 7, 8), generated from the same zod
 * schemas that validate the requests. Only the routes behind the bearer key are operations here: the document
 * itself (GET /public/v1/openapi.json) and the /docs page are served outside that router, need no key and are
 * not part of the contract they describe.
 */

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31["generateDocument"]>;

export const OPENAPI_TITLE = "Messaging Gateway Public API and Webhook Specification";
export const OPENAPI_VERSION = "1.0.0";
/** Path prefix of every public operation (spec 9). */
export const PUBLIC_API_PREFIX = "/public/v1";
export const SECURITY_SCHEME = "ChaveDeApi";
export const PUBLIC_API_TAG = "public-api";
export const WEBHOOKS_TAG = "webhooks";

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
const validationRef = { $ref: "#/components/schemas/HTTPValidationError" } as const;

/** The envelope with `error.code` narrowed to what this operation can answer with this status. */
function errorSchema(codes: readonly ErrorCode[]) {
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

function codeList(codes: readonly ErrorCode[]): string {
  return codes.map((code) => `\`${code}\``).join(", ");
}

/** Named examples built from the error registry, so the document shows the sentences the service sends. */
function errorExamples(codes: readonly ErrorCode[]) {
  return Object.fromEntries(
    codes.map((code) => [code, { value: { success: false, error: { code, message: ERROR_REGISTRY[code].message } } }]),
  );
}

function errorResponse(
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

const unauthorized = errorResponse("API key missing, invalid or revoked.", ["invalid_api_key"]);
const tooManyRequests = (codes: readonly ErrorCode[]) =>
  errorResponse("Too many requests; honour the `Retry-After` header.", codes, RetryAfterHeaders);
const internalError = errorResponse("Unexpected failure; repeat later.", ["internal_error"]);
const payloadTooLarge = errorResponse("Body above 256 KiB.", ["payload_too_large"]);
const requestValidation = (what: string): ResponseConfig => ({
  description: `Request validation error (${what}); malformed JSON is \`json_invalid\`.`,
  content: { "application/json": { schema: validationRef } },
});

/** The authenticated public operations: the bearer scheme and the public-api tag on each (spec 4, 5). */
function publicOperation(route: Omit<RouteConfig, "security" | "tags">): RouteConfig {
  return {
    ...route,
    path: `${PUBLIC_API_PREFIX}${route.path}`,
    tags: [PUBLIC_API_TAG],
    security: [{ [SECURITY_SCHEME]: [] }],
  };
}

export interface ExampleName {
  name: string;
  summary: string;
}

/** Request examples declared with `.meta({ examples })` on the request schema, as named media-type examples. */
function requestExamples(schema: z.ZodType, names: readonly ExampleName[]) {
  const examples = (schema.meta()?.examples ?? []) as unknown[];
  return Object.fromEntries(
    examples.map((value, i) => {
      const named = names[i] ?? { name: `example_${i + 1}`, summary: `Example ${i + 1}` };
      return [named.name, { summary: named.summary, value }];
    }),
  );
}

const MESSAGES_422: readonly ErrorCode[] = [
  "outside_24h_window",
  "recipient_unreachable",
  "template_params_mismatch",
  "template_not_found",
  "template_paused",
  "invalid_template",
  "marketing_experiment",
  "delivery_limited",
  "payment_issue",
  "account_restricted",
  "variable_too_long",
  "variable_bad_format",
  "invalid_pix_order",
  "template_required_header_media",
  "template_header_mismatch",
  "template_format_unsupported",
  "invalid_otp",
  "provider_rejected",
];

/** Names of the request examples, in the order of the schema's `.meta({ examples })`. */
export const SEND_EXAMPLE_NAMES: readonly ExampleName[] = [
  { name: "text", summary: "Free text (the contact wrote in the last 24 hours)" },
  { name: "template", summary: "Approved template: header text and body variables" },
  { name: "pix", summary: "Pix charge: order-details template with pix_order" },
];
export const VALIDATE_EXAMPLE_NAMES: readonly ExampleName[] = [
  { name: "br_mobile", summary: "Brazilian mobile number in national format" },
];

function registerOperations(registry: OpenAPIRegistry): void {
  registry.registerPath(
    publicOperation({
      method: "post",
      path: "/messages",
      operationId: "sendMessage",
      summary: "Send a message (text or template)",
      description:
        "Free text needs the contact's 24-hour window open (`outside_24h_window` otherwise: send an approved template). " +
        "With `Idempotency-Key` the key is reserved before the provider is contacted; repeat a call after a connection error or a 5xx with the SAME key and the same body.",
      request: {
        headers: z.object({ "Idempotency-Key": IdempotencyKeyHeader.optional() }),
        body: {
          required: true,
          content: {
            "application/json": { schema: PublicSendIn, examples: requestExamples(PublicSendIn, SEND_EXAMPLE_NAMES) },
          },
        },
      },
      responses: {
        200: {
          description: "Sent; `data.message_id` is the id later carried by `message.status`.",
          headers: z.object({
            "Idempotent-Replayed": z
              .literal("true")
              .optional()
              .describe("Present when this is the stored answer of an earlier call with the same Idempotency-Key"),
          }),
          content: { "application/json": { schema: SendResultOut } },
        },
        400: errorResponse("Incomplete request, invalid recipient or business number not in the account.", [
          "invalid_recipient",
          "empty_message",
          "pix_needs_template",
          "no_connected_number",
        ]),
        401: unauthorized,
        409: errorResponse(
          "Idempotency-Key in use: still in progress (wait a few seconds and repeat with the same key), or used with another body.",
          ["idempotency_in_flight", "idempotency_conflict", "idempotency_legacy_unverified"],
        ),
        413: payloadTooLarge,
        422: {
          description: `The provider (or the service's own pre-check) refused the send — error envelope, codes: ${codeList(MESSAGES_422)}; or the body or the Idempotency-Key header is invalid — \`HTTPValidationError\`.`,
          content: {
            "application/json": {
              schema: { anyOf: [errorSchema(MESSAGES_422), validationRef] },
              examples: errorExamples(["outside_24h_window", "template_params_mismatch"]),
            },
          },
        },
        429: tooManyRequests(["api_rate_limited", "rate_limited"]),
        500: internalError,
        503: errorResponse(
          "Template lookup unavailable, provider unavailable, or a send the provider did not confirm (never resent with that key); repeat with the same Idempotency-Key.",
          ["templates_unavailable", "send_unconfirmed", "provider_unavailable"],
        ),
      },
    }),
  );

  registry.registerPath(
    publicOperation({
      method: "post",
      path: "/validate",
      operationId: "validatePhone",
      summary: "Validate and normalize a phone format",
      description: "`valid=true` does not confirm registration on the channel, authorization to send or delivery.",
      request: {
        body: {
          required: true,
          content: {
            "application/json": { schema: ValidateIn, examples: requestExamples(ValidateIn, VALIDATE_EXAMPLE_NAMES) },
          },
        },
      },
      responses: {
        200: {
          description: "`to` normalized (digits only) and the `valid` flag.",
          content: { "application/json": { schema: ValidateOut } },
        },
        401: unauthorized,
        413: payloadTooLarge,
        422: requestValidation("body"),
        429: tooManyRequests(["api_rate_limited"]),
        500: internalError,
      },
    }),
  );

  registry.registerPath(
    publicOperation({
      method: "get",
      path: "/window/{to}",
      operationId: "getWindow",
      summary: "Is the 24-hour window open",
      description:
        "Counts from the last time the CONTACT wrote. A contact that never wrote yields `open: false` (not an error), and so does an account without any business number.",
      request: { params: WindowPath, query: WindowQuery },
      responses: {
        200: {
          description: "Window state of the contact on the business number.",
          content: { "application/json": { schema: WindowOut } },
        },
        401: unauthorized,
        422: requestValidation("path or query; also a `phone_number_id` that is not one of the account's numbers"),
        429: tooManyRequests(["api_rate_limited"]),
        500: internalError,
      },
    }),
  );

  registry.registerPath(
    publicOperation({
      method: "get",
      path: "/templates",
      operationId: "listTemplates",
      summary: "Template catalogue",
      description:
        "Only approved templates by default; `status=ALL` returns every status. `body.variables_count` is the number of entries the send's `variables` must have.",
      request: { query: TemplatesQuery },
      responses: {
        200: { description: "The catalogue.", content: { "application/json": { schema: TemplateCatalogueOut } } },
        400: errorResponse("Invalid status filter, or no connected business number.", [
          "invalid_template_status",
          "no_connected_number",
        ]),
        401: unauthorized,
        422: requestValidation("query"),
        429: tooManyRequests(["api_rate_limited"]),
        500: internalError,
        503: errorResponse("The full catalogue could not be obtained from the provider.", ["templates_unavailable"]),
      },
    }),
  );

  registry.registerPath(
    publicOperation({
      method: "get",
      path: "/deliveries",
      operationId: "listDeliveries",
      summary: "Webhook delivery queue",
      description: "Most recent first. Repeat with `before_id=next_before_id` until `next_before_id` is null.",
      request: { query: DeliveriesQuery },
      responses: {
        200: { description: "One page of deliveries.", content: { "application/json": { schema: DeliveryListOut } } },
        401: unauthorized,
        422: requestValidation("query"),
        429: tooManyRequests(["api_rate_limited"]),
        500: internalError,
      },
    }),
  );

  registry.registerPath(
    publicOperation({
      method: "post",
      path: "/deliveries/retry-failed",
      operationId: "retryFailedDeliveries",
      summary: "Resend all failed deliveries",
      description:
        "Re-queues every delivery that exhausted its automatic attempts. No body (one sent is ignored), no parameters.",
      responses: {
        200: {
          description: "How many deliveries were re-queued.",
          content: { "application/json": { schema: RetryFailedOut } },
        },
        401: unauthorized,
        429: tooManyRequests(["api_rate_limited"]),
        500: internalError,
      },
    }),
  );

  registry.registerPath(
    publicOperation({
      method: "get",
      path: "/deliveries/{delivery_id}",
      operationId: "getDelivery",
      summary: "One delivery",
      description: "`last_error` is the body the integrator's endpoint answered, also on 2xx.",
      request: { params: DeliveryPath },
      responses: {
        200: {
          description: "The delivery, with the signed envelope.",
          content: { "application/json": { schema: DeliveryDetailOut } },
        },
        401: unauthorized,
        404: errorResponse("Delivery not in this account.", ["not_found"]),
        422: requestValidation("path"),
        429: tooManyRequests(["api_rate_limited"]),
        500: internalError,
      },
    }),
  );

  registry.registerPath(
    publicOperation({
      method: "post",
      path: "/deliveries/{delivery_id}/retry",
      operationId: "retryDelivery",
      summary: "Resend a delivery",
      description:
        "For deliveries in `failed` or `delivered`; the body is signed again at dispatch with a current timestamp. Audited as `api.webhook.retry`.",
      request: { params: DeliveryPath },
      responses: {
        200: { description: "Back in the queue.", content: { "application/json": { schema: RetryOut } } },
        401: unauthorized,
        404: errorResponse("Delivery not in this account.", ["not_found"]),
        422: {
          description:
            "The delivery is `pending` or `delivering` — error envelope, code `delivery_not_retryable`; or an invalid path — `HTTPValidationError`.",
          content: {
            "application/json": {
              schema: { anyOf: [errorSchema(["delivery_not_retryable"]), validationRef] },
              examples: errorExamples(["delivery_not_retryable"]),
            },
          },
        },
        429: tooManyRequests(["api_rate_limited"]),
        500: internalError,
      },
    }),
  );
}

/** Spec 6: the signed POSTs the gateway sends to the integrator's endpoint. */
function registerWebhooks(registry: OpenAPIRegistry): void {
  const acknowledgement: RouteConfig["responses"] = {
    "2XX": {
      description:
        "Accepted: persist the event durably before answering; the body is recorded (`last_error`) but not interpreted.",
    },
    default: {
      description:
        "Any other answer (or a time-out after 10 s, or a redirect) puts the delivery in the retry queue: 30 s, 2 min, 10 min, 1 h, 6 h and 24 h (±20 %).",
    },
  };
  const webhook = (
    event: string,
    operationId: string,
    summary: string,
    description: string,
    schema: z.ZodType,
  ): RouteConfig => ({
    method: "post",
    path: event,
    operationId,
    summary,
    description:
      `${description} Verify \`X-PT-Signature\` over the ORIGINAL body bytes: HMAC-SHA256 of \`X-PT-Timestamp + "." + raw body\` with the signing secret, ` +
      "lowercase hex; refuse (401) when |now − X-PT-Timestamp| > 300 s; compare in constant time. Deduplicate on integration + `delivery_id`.",
    tags: [WEBHOOKS_TAG],
    request: { headers: WebhookRequestHeaders, body: { required: true, content: { "application/json": { schema } } } },
    responses: acknowledgement,
  });
  registry.registerWebhook(
    webhook(
      "message.status",
      "onMessageStatus",
      "Status change of a sent message",
      "Delivery, read or failure of a message sent by the platform.",
      MessageStatusEvent,
    ),
  );
  registry.registerWebhook(
    webhook(
      "message.received",
      "onMessageReceived",
      "Message from a contact",
      "A contact wrote to a business number (must be enabled explicitly). Events may arrive out of order.",
      MessageReceivedEvent,
    ),
  );
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

/**
 * The generator writes a nullable use of an already generated component as `allOf: [$ref, {type: [..., "null"]}]`,
 * which refuses null (the `$ref` branch must hold too). Rewritten as `oneOf: [$ref, {type: "null"}]`, what the
 * same generator writes for 3.1 when the component is still being built.
 */
function fixNullableRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(fixNullableRefs);
  if (!isRecord(node)) return node;
  const allOf = node.allOf;
  if (Array.isArray(allOf) && allOf.length === 2) {
    const [ref, extra] = allOf as unknown[];
    if (
      isRecord(ref) &&
      typeof ref.$ref === "string" &&
      isRecord(extra) &&
      Object.keys(extra).length === 1 &&
      Array.isArray(extra.type) &&
      extra.type.includes("null")
    ) {
      const { allOf: _replaced, ...rest } = node;
      const fixed = fixNullableRefs(rest);
      return { ...(isRecord(fixed) ? fixed : {}), oneOf: [ref, { type: "null" }] };
    }
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, fixNullableRefs(value)]));
}

/** Builds the document; cheap enough to build once per process and serve as is. */
export function buildOpenApiDocument(): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", SECURITY_SCHEME, {
    type: "http",
    scheme: "bearer",
    description: "`Authorization: Bearer <API_KEY>`. A missing, invalid or revoked key yields 401 `invalid_api_key`.",
  });
  registerOperations(registry);
  registerWebhooks(registry);

  const generator = new OpenApiGeneratorV31([
    ...COMPONENTS_FIRST.map((schema) => ({ type: "schema" as const, schema })),
    ...registry.definitions,
  ]);
  const document = generator.generateDocument({
    openapi: "3.1.0",
    info: {
      title: OPENAPI_TITLE,
      version: OPENAPI_VERSION,
      description:
        "Send messages over a business messaging channel, validate phone formats, check the 24-hour window, read the template catalogue and manage the webhook delivery queue; " +
        "plus the signed webhook events pushed to the integrator's endpoint. Human-readable error messages are Portuguese sentences.",
    },
    servers: [{ url: "/", description: "This server" }],
    // Only the paths' tag: Swagger UI lists webhooks in a section of their own and would show an empty group.
    tags: [
      {
        name: PUBLIC_API_TAG,
        description: "Public API: every operation needs the bearer key and may answer 401 and 429.",
      },
    ],
  });
  return fixNullableRefs(document) as OpenApiDocument;
}
