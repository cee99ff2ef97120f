import { describe, expect, it } from "@jest/globals";
import { Validator } from "@seriousme/openapi-schema-validator";
import { ERROR_REGISTRY, isErrorCode } from "@gw/errors";
import { buildOpenApiDocument } from "../src/openapi.ts";

// The document says what the spec says (sections 2, 4–8) and is a valid OpenAPI 3.1 description.

type Json = Record<string, unknown>;

function isJson(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The object at `path`, failing the test with the path when it is not there. */
function at(root: unknown, ...path: (string | number)[]): Json {
  let current: unknown = root;
  for (const key of path) {
    current =
      isJson(current) || Array.isArray(current) ? (current as Record<string | number, unknown>)[key] : undefined;
  }
  if (!isJson(current)) throw new Error(`nada em ${path.join(" / ")}`);
  return current;
}

const document: Json = JSON.parse(JSON.stringify(buildOpenApiDocument())) as Json;
const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

function operations(): { path: string; method: string; op: Json }[] {
  return Object.entries(at(document, "paths")).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]) => ({ path, method, op: op as Json })),
  );
}

const operation = (method: string, path: string): Json => at(document, "paths", path, method);
const schema = (name: string): Json => at(document, "components", "schemas", name);
const property = (name: string, field: string): Json => at(schema(name), "properties", field);

/** `error.code` values a response narrows the envelope to (see errorSchema in contracts/openapi.ts). */
function documentedCodes(response: Json): string[] {
  const codes: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isJson(node)) return;
    const code =
      isJson(node.properties) && isJson(node.properties.error)
        ? (node.properties.error.properties as Json | undefined)?.code
        : undefined;
    if (isJson(code) && Array.isArray(code.enum)) codes.push(...(code.enum as string[]));
    Object.values(node).forEach(visit);
  };
  visit(response.content);
  return codes;
}

describe("OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)", async () => {
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("has the spec's title and version 1.0.0, and the ChaveDeApi bearer scheme", () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(at(document, "info")).toMatchObject({
      title: "Messaging Gateway Public API and Webhook Specification",
      version: "1.0.0",
    });
    expect(at(document, "components", "securitySchemes", "ChaveDeApi")).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
  });

  it("every operation: bearer key, tag public-api, 401 and 429 with Retry-After, 4xx/5xx as the error envelope or HTTPValidationError", () => {
    const all = operations();
    // 25 of the contract and issue 26, issue 29's six integration operations, issue 27's media upload and download,
    // issue 28's three order operations, issue 37's numbers (list, change), one message and one conversation (its
    // detail and its thread control), and issue 39's handover.
    expect(all.length).toBe(42);
    for (const { path, method, op } of all) {
      const where = `${method.toUpperCase()} ${path}`;
      // The key's scope the operation requires (issue 35; each one checked in api.scopes.test.ts).
      const scope = op["x-required-scope"];
      expect({ where, scoped: typeof scope === "string" }).toEqual({ where, scoped: true });
      expect({ where, security: op.security, tags: op.tags }).toEqual({
        where,
        security: [{ ChaveDeApi: [scope] }],
        tags: ["public-api"],
      });
      const responses = at(op, "responses");
      expect({ where, has401: "401" in responses, has429: "429" in responses }).toEqual({
        where,
        has401: true,
        has429: true,
      });
      expect(at(responses, "429", "headers", "Retry-After")).toMatchObject({
        required: true,
        schema: { type: "integer" },
      });
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) < 400) continue;
        const refs = JSON.stringify(at(response, "content", "application/json", "schema")).match(
          /#\/components\/schemas\/(ErrorResponse|HTTPValidationError)/g,
        );
        expect({ where, status, refs: refs !== null }).toEqual({ where, status, refs: true });
      }
    }
  });

  it("every operation with a path parameter documents the 400 bad_request of a path that does not decode (`%`)", () => {
    // The fuzzer found GET /media/{media_id} answering `/media/%` with an undocumented 400 (express cannot decode the
    // escape before any route runs): every operation that takes a path parameter can answer it.
    const withPath = operations().filter(({ op }) =>
      (Array.isArray(op.parameters) ? op.parameters : []).some((p) => isJson(p) && p.in === "path"),
    );
    expect(withPath.length).toBeGreaterThan(10);
    const missing = withPath
      .filter(({ op }) => !JSON.stringify(at(op, "responses")["400"] ?? null).includes("bad_request"))
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(missing).toEqual([]);
  });
  it("the envelope {success:false, error:{code, message}} and HTTPValidationError with ValidationError items", () => {
    expect(schema("ErrorResponse")).toMatchObject({
      required: ["success", "error"],
      properties: {
        success: { enum: [false] },
        error: { required: ["code", "message"], properties: { code: { type: "string" }, message: { type: "string" } } },
      },
    });
    expect(schema("HTTPValidationError")).toMatchObject({
      required: ["detail"],
      properties: { detail: { type: "array", items: { $ref: "#/components/schemas/ValidationError" } } },
    });
    const item = schema("ValidationError");
    expect(item.required).toEqual(["loc", "msg", "type"]);
    expect(Object.keys(at(item, "properties")).sort()).toEqual(["ctx", "input", "loc", "msg", "type"]);
    expect(at(item, "properties", "loc", "items")).toEqual({ anyOf: [{ type: "string" }, { type: "integer" }] });
  });

  it("the statuses of spec section 4 for each endpoint, and every listed code answers with that status", () => {
    const spec: Record<string, number[]> = {
      "post /public/v1/messages": [200, 400, 401, 409, 422, 429, 503],
      "post /public/v1/messages/{message_id}/read": [200, 401, 404, 422, 429, 503],
      "post /public/v1/validate": [200, 401, 422, 429],
      "get /public/v1/window/{to}": [200, 401, 422, 429],
      "get /public/v1/templates": [200, 400, 401, 422, 429, 503],
      "get /public/v1/deliveries": [200, 401, 422, 429],
      "get /public/v1/deliveries/{delivery_id}": [200, 401, 404, 422, 429],
      "post /public/v1/deliveries/{delivery_id}/retry": [200, 401, 404, 422, 429],
      "post /public/v1/deliveries/retry-failed": [200, 401, 429],
      "get /public/v1/integrations": [200, 401, 422, 429],
      "post /public/v1/integrations": [201, 400, 401, 413, 422, 429, 503],
      "get /public/v1/integrations/{integration_id}": [200, 400, 401, 404, 422, 429],
      "patch /public/v1/integrations/{integration_id}": [200, 400, 401, 404, 413, 422, 429, 503],
      "delete /public/v1/integrations/{integration_id}": [200, 400, 401, 404, 422, 429],
      "post /public/v1/integrations/{integration_id}/rotate-secret": [200, 400, 401, 404, 413, 422, 429, 503],
      "get /public/v1/integrations/{integration_id}/health": [200, 401, 404, 422, 429],
      "post /public/v1/integrations/{integration_id}/enable": [200, 401, 404, 422, 429],
      "get /public/v1/event-types": [200, 401, 429],
      "post /public/v1/campaigns": [201, 400, 401, 422, 429, 503],
      "get /public/v1/campaigns": [200, 401, 422, 429],
      "get /public/v1/campaigns/{campaign_id}": [200, 401, 404, 422, 429],
      "post /public/v1/campaigns/{campaign_id}/start": [200, 401, 404, 409, 422, 429],
      "post /public/v1/campaigns/{campaign_id}/pause": [200, 401, 404, 409, 422, 429],
      "post /public/v1/campaigns/{campaign_id}/resume": [200, 401, 404, 409, 422, 429],
      "post /public/v1/campaigns/{campaign_id}/cancel": [200, 401, 404, 409, 422, 429],
      "get /public/v1/campaigns/{campaign_id}/recipients": [200, 401, 404, 422, 429],
      "get /public/v1/campaigns/{campaign_id}/recipients/export": [200, 401, 404, 422, 429],
      "get /public/v1/usage": [200, 401, 422, 429],
      "post /public/v1/deliveries/replay": [202, 401, 422, 429],
      "get /public/v1/deliveries/replays/{replay_id}": [200, 401, 404, 422, 429],
      "get /public/v1/deliveries/export": [200, 401, 422, 429],
      "post /public/v1/media": [201, 400, 401, 413, 415, 422, 429, 503],
      "get /public/v1/media/{media_id}": [200, 401, 404, 410, 413, 422, 429, 503],
      "get /public/v1/orders": [200, 401, 422, 429],
      "get /public/v1/orders/{reference_id}": [200, 400, 401, 404, 422, 429],
      "post /public/v1/orders/{reference_id}/status": [200, 400, 401, 404, 409, 413, 422, 429, 503],
      "get /public/v1/numbers": [200, 401, 429],
      "patch /public/v1/numbers/{phone_number_id}": [200, 400, 401, 403, 404, 413, 422, 429],
      "get /public/v1/messages/{message_id}": [200, 400, 401, 403, 404, 422, 429],
      "get /public/v1/conversations/{recipient}": [200, 400, 401, 403, 422, 429],
      "post /public/v1/conversations/{recipient}/thread-control": [200, 400, 401, 403, 409, 413, 422, 429, 503],
      "post /public/v1/conversations/{recipient}/handover": [200, 400, 401, 403, 413, 422, 429],
    };
    for (const { path, method, op } of operations()) {
      const responses = at(op, "responses");
      const statuses = Object.keys(responses).map(Number);
      expect(statuses).toEqual(expect.arrayContaining(spec[`${method} ${path}`] ?? [-1]));
      for (const [status, response] of Object.entries(responses)) {
        for (const code of documentedCodes(response as Json)) {
          expect({ code, known: isErrorCode(code) }).toEqual({ code, known: true });
          if (isErrorCode(code))
            expect({ code, status: ERROR_REGISTRY[code].status }).toEqual({ code, status: Number(status) });
          expect(String((response as Json).description)).toContain(`\`${code}\``);
        }
      }
    }
  });

  it("the send documents every code of spec section 7 for messages", () => {
    const responses = at(operation("post", "/public/v1/messages"), "responses");
    const codesOf = (status: string) => documentedCodes(at(responses, status));
    expect(codesOf("400")).toEqual(
      expect.arrayContaining(["invalid_recipient", "empty_message", "pix_needs_template"]),
    );
    expect(codesOf("409")).toEqual(
      expect.arrayContaining(["idempotency_in_flight", "idempotency_conflict", "idempotency_legacy_unverified"]),
    );
    expect(codesOf("422")).toEqual(
      expect.arrayContaining([
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
      ]),
    );
    expect(JSON.stringify(at(responses, "422"))).toContain("#/components/schemas/HTTPValidationError");
    expect(codesOf("429")).toEqual(expect.arrayContaining(["api_rate_limited", "rate_limited"]));
    expect(codesOf("503")).toEqual(expect.arrayContaining(["templates_unavailable"]));
    expect(codesOf("401")).toEqual(["invalid_api_key"]);
    const templates = at(operation("get", "/public/v1/templates"), "responses");
    expect(documentedCodes(at(templates, "400")).sort()).toEqual(["invalid_template_status", "no_connected_number"]);
    expect(documentedCodes(at(templates, "503"))).toEqual(["templates_unavailable"]);
    expect(documentedCodes(at(operation("get", "/public/v1/deliveries/{delivery_id}"), "responses", "404"))).toEqual([
      "not_found",
    ]);
  });

  it("the Idempotency-Key header (max 64) on POST /messages", () => {
    const parameters = operation("post", "/public/v1/messages").parameters as Json[];
    expect(parameters).toEqual([
      expect.objectContaining({
        in: "header",
        name: "Idempotency-Key",
        required: false,
        schema: expect.objectContaining({ type: "string", maxLength: 64 }),
      }),
    ]);
  });

  it("the send's 409 declares Retry-After (always with idempotency_in_flight) in whole seconds", () => {
    const conflict = at(operation("post", "/public/v1/messages"), "responses", "409");
    expect(at(conflict, "headers", "Retry-After")).toMatchObject({ schema: { type: "integer", minimum: 1 } });
    expect(String(at(conflict, "headers", "Retry-After").description)).toContain("idempotency_in_flight");
  });

  it.each([
    // Spec 2.1 / 8
    ["PublicSendIn", "to", { type: "string", minLength: 1, maxLength: 32 }],
    ["PublicSendIn", "phone_number_id", { type: ["string", "null"], maxLength: 64 }],
    ["PublicSendIn", "text", { type: ["string", "null"], maxLength: 4096 }],
    ["PublicSendIn", "template", { type: ["string", "null"], maxLength: 255 }],
    ["PublicSendIn", "language", { type: "string", maxLength: 16, default: "pt_BR" }],
    ["PublicSendIn", "variables", { type: ["array", "null"], maxItems: 20, items: { type: "string" } }],
    ["PublicSendIn", "variable_names", { type: ["array", "null"], maxItems: 20, items: { type: "string" } }],
    ["PublicSendIn", "header_media", { oneOf: [{ $ref: "#/components/schemas/HeaderMediaIn" }, { type: "null" }] }],
    ["PublicSendIn", "header_text", { type: ["string", "null"], maxLength: 200 }],
    ["PublicSendIn", "button_url_param", { type: ["string", "null"], maxLength: 200 }],
    ["PublicSendIn", "button_url_index", { type: "integer", minimum: 0, maximum: 9, default: 0 }],
    ["PublicSendIn", "coupon_code", { type: ["string", "null"], maxLength: 15 }],
    ["PublicSendIn", "coupon_index", { type: "integer", minimum: 0, maximum: 9, default: 0 }],
    ["PublicSendIn", "otp_code", { type: ["string", "null"], maxLength: 15 }],
    ["PublicSendIn", "otp_index", { type: "integer", minimum: 0, maximum: 9, default: 0 }],
    ["PublicSendIn", "reply_to_message_id", { type: ["string", "null"], maxLength: 128 }],
    ["PublicSendIn", "pix_order", { oneOf: [{ $ref: "#/components/schemas/PixOrderIn" }, { type: "null" }] }],
    ["PublicSendIn", "client_ref", { type: ["string", "null"], maxLength: 64 }],
    // 2.2
    ["HeaderMediaIn", "type", { type: "string", maxLength: 16, default: "document" }],
    ["HeaderMediaIn", "link", { type: "string", minLength: 8, maxLength: 2048 }],
    ["HeaderMediaIn", "filename", { type: ["string", "null"], maxLength: 200 }],
    // 2.3
    ["PixOrderIn", "reference_id", { type: "string", minLength: 1, maxLength: 64 }],
    ["PixOrderIn", "pix_code", { type: "string", minLength: 20, maxLength: 1024 }],
    ["PixOrderIn", "merchant_name", { type: "string", minLength: 1, maxLength: 120 }],
    ["PixOrderIn", "key", { type: "string", minLength: 1, maxLength: 120 }],
    ["PixOrderIn", "key_type", { enum: ["CNPJ", "CPF", "EMAIL", "PHONE", "EVP"], default: "CNPJ" }],
    [
      "PixOrderIn",
      "items",
      { type: "array", minItems: 1, maxItems: 30, items: { $ref: "#/components/schemas/PixItemIn" } },
    ],
    ["PixOrderIn", "total_amount", { type: ["integer", "null"], minimum: 0 }],
    ["PixOrderIn", "tax", { type: "integer", minimum: 0, default: 0 }],
    ["PixOrderIn", "goods_type", { enum: ["digital-goods", "physical-goods"], default: "digital-goods" }],
    ["PixItemIn", "name", { type: "string", minLength: 1, maxLength: 60 }],
    ["PixItemIn", "amount", { type: "integer", minimum: 0 }],
    ["PixItemIn", "quantity", { type: "integer", minimum: 1, maximum: 1000, default: 1 }],
    ["PixItemIn", "retailer_id", { type: ["string", "null"], maxLength: 64 }],
    // 2.4
    ["ValidateIn", "to", { type: "string", minLength: 1, maxLength: 32 }],
    ["ValidateIn", "country", { type: ["string", "null"], maxLength: 2 }],
  ])("request schema %s.%s has the spec's limits and default", (name, field, expected) => {
    expect(property(name, field)).toMatchObject(expected);
  });

  it("required request fields are exactly those of spec 2.1–2.4", () => {
    expect(schema("PublicSendIn").required).toEqual(["to"]);
    expect(schema("HeaderMediaIn").required).toEqual(["link"]);
    expect((schema("PixOrderIn").required as string[]).sort()).toEqual([
      "items",
      "key",
      "merchant_name",
      "pix_code",
      "reference_id",
    ]);
    expect((schema("PixItemIn").required as string[]).sort()).toEqual(["amount", "name"]);
    expect(schema("ValidateIn").required).toEqual(["to"]);
  });

  it("query and path parameters of spec 4.3–4.7", () => {
    const param = (method: string, path: string, name: string) =>
      (operation(method, path).parameters as Json[]).find((p) => p.name === name);
    expect(param("get", "/public/v1/window/{to}", "to")).toMatchObject({
      in: "path",
      required: true,
      schema: { type: "string" },
    });
    expect(param("get", "/public/v1/window/{to}", "phone_number_id")).toMatchObject({ in: "query", required: false });
    expect(param("get", "/public/v1/templates", "status")).toMatchObject({
      in: "query",
      required: false,
      schema: { type: "string", default: "APPROVED" },
    });
    expect(param("get", "/public/v1/templates", "phone_number_id")).toMatchObject({ in: "query", required: false });
    expect(param("get", "/public/v1/deliveries", "status")).toMatchObject({
      in: "query",
      schema: { enum: ["pending", "delivering", "delivered", "failed"] },
    });
    expect(param("get", "/public/v1/deliveries", "limit")).toMatchObject({
      in: "query",
      required: false,
      schema: { type: "integer", default: 50 },
    });
    expect(param("get", "/public/v1/deliveries", "before_id")).toMatchObject({
      in: "query",
      required: false,
      schema: { type: "integer" },
    });
    for (const [method, path] of [
      ["get", "/public/v1/deliveries/{delivery_id}"],
      ["post", "/public/v1/deliveries/{delivery_id}/retry"],
    ] as const) {
      expect(param(method, path, "delivery_id")).toMatchObject({
        in: "path",
        required: true,
        schema: { type: "integer" },
      });
    }
    expect(param("post", "/public/v1/messages/{message_id}/read", "message_id")).toMatchObject({
      in: "path",
      required: true,
      schema: { type: "string", minLength: 1, maxLength: 128 },
    });
    // The read receipt's body is optional: none is `{}` (no typing indicator).
    expect(operation("post", "/public/v1/messages/{message_id}/read").requestBody).toMatchObject({ required: false });
    expect(schema("ReadIn").required ?? []).toEqual([]);
    expect(operation("post", "/public/v1/deliveries/retry-failed").parameters).toBeUndefined();
    expect(operation("post", "/public/v1/deliveries/retry-failed").requestBody).toBeUndefined();
  });

  it("the template catalogue item has every field of spec 2.5, all required", () => {
    const item = schema("TemplateItemOut");
    const fields = [
      "id",
      "name",
      "language",
      "status",
      "category",
      "quality_score",
      "rejected_reason",
      "message_send_ttl_seconds",
      "sendable",
      "api_supported",
      "api_unsupported_reason",
      "header",
      "parameter_format",
      "body",
      "footer",
      "buttons",
      "body_text",
      "variables_count",
      "variable_names",
      "header_format",
      "components",
      // Added by issue 37: Meta's sub-category (ORDER_STATUS templates are sent by an order's update only).
      "sub_category",
    ];
    expect(Object.keys(at(item, "properties")).sort()).toEqual([...fields].sort());
    expect((item.required as string[]).sort()).toEqual([...fields].sort());
    expect(at(schema("TemplateCatalogueOut"), "properties", "data", "properties", "templates", "items")).toEqual({
      $ref: "#/components/schemas/TemplateItemOut",
    });
  });

  it("the webhooks message.status, message.received and account.update: X-PT-* headers and the envelope of 2.7", () => {
    const webhooks = at(document, "webhooks");
    expect(Object.keys(webhooks).sort()).toEqual([
      "account.update",
      "conversation.handover",
      "conversation.updated",
      "message.received",
      "message.status",
      "order.updated",
    ]);
    // Spec 6.2 and 6.3's fields, and those added in 2026 (BSUIDs, pricing): documented and always present.
    const data: Record<string, string[]> = {
      "message.status": [
        "message_id",
        "status",
        "status_rank",
        "to",
        "recipient_user_id",
        "error",
        "phone_number_id",
        "client_ref",
        "campaign_id",
        "pricing",
      ],
      "message.received": [
        "message_id",
        "from_user_id",
        "from_parent_user_id",
        "from_username",
        "from",
        "phone_number_id",
        "type",
        "text",
        "media_id",
        "media_mime",
        "media_filename",
        "reply_to_message_id",
        "contact_name",
        "occurred_at",
        "window_expires_at",
      ],
      "account.update": [
        "account_event_id",
        "waba_id",
        "field",
        "event",
        "phone_number_id",
        "occurred_at",
        "value",
        "effects",
      ],
      // Issue 28 (opt-in).
      "order.updated": [
        "reference_id",
        "phone_number_id",
        "to",
        "order_status",
        "payment_status",
        "payment_timestamp",
        "description",
        "trigger",
        "updated_at",
        "message",
      ],
      // Issue 37 (opt-in).
      "conversation.handover": [
        "type",
        "phone_number_id",
        "recipient",
        "phone",
        "user_id",
        "holder",
        "previous_role",
        "current_role",
        "metadata",
        "occurred_at",
      ],
      // Issue 39 (opt-in).
      "conversation.updated": [
        "change",
        "phone_number_id",
        "recipient",
        "phone",
        "user_id",
        "handler",
        "note",
        "status",
        "assignee",
        "by",
        "occurred_at",
      ],
    };
    for (const [event, fields] of Object.entries(data)) {
      const post = at(webhooks, event, "post");
      const headers = (post.parameters as Json[]).filter((p) => p.in === "header");
      // The signature headers depend on the integration's scheme (issue 21): X-PT-* (default) or Standard Webhooks.
      expect(headers.map((h) => [h.name, h.required ?? false]).sort()).toEqual([
        ["X-PT-Attempt", true],
        ["X-PT-Delivery-Id", true],
        ["X-PT-Event", true],
        ["X-PT-Signature", false],
        ["X-PT-Timestamp", false],
        ["webhook-id", false],
        ["webhook-signature", false],
        ["webhook-timestamp", false],
      ]);
      const ref = String(at(post, "requestBody", "content", "application/json", "schema").$ref);
      const envelope = schema(ref.replace("#/components/schemas/", ""));
      expect((envelope.required as string[]).sort()).toEqual(["data", "delivery_id", "event", "occurred_at"]);
      expect(at(envelope, "properties", "event")).toMatchObject({ enum: [event] });
      const dataRef = String(at(envelope, "properties", "data").$ref);
      const dataSchema = schema(dataRef.replace("#/components/schemas/", ""));
      expect((dataSchema.required as string[]).sort()).toEqual([...fields].sort());
    }
    expect(property("MessageStatusData", "status")).toMatchObject({ enum: ["sent", "delivered", "read", "failed"] });
    expect(property("MessageStatusData", "error")).toMatchObject({
      type: ["object", "null"],
      required: ["code", "message", "reason"],
    });
    expect(property("MessageReceivedData", "type")).toMatchObject({
      enum: [
        "text",
        "image",
        "audio",
        "video",
        "document",
        "sticker",
        "location",
        "contacts",
        "button",
        "interactive",
        "unsupported",
      ],
    });
  });

  it("components are never nullable themselves; a nullable use is oneOf [$ref, null] (works around zod-to-openapi 9.1)", () => {
    for (const [name, component] of Object.entries(at(document, "components", "schemas"))) {
      expect({ name, type: (component as Json).type }).toEqual({ name, type: "object" });
    }
    expect(JSON.stringify(document)).not.toMatch(/"allOf":\[\{"\$ref":"[^"]+"\},\{"type":\[[^\]]*"null"\]\}\]/);
  });
});
