import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Ajv2020 } from "ajv/dist/2020.js";
import request from "supertest";
import { WEBHOOK_EVENT_NAMES } from "@gw/contracts";
import { buildOpenApiDocument } from "../src/openapi.ts";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";

// GET /public/v1/event-types (issue 21): every webhook the document lists, with the document's own schema made
// self-contained, an example valid against it, and a Portuguese description; behind the API key like the rest.

type Json = Record<string, unknown>;
const document = JSON.parse(JSON.stringify(buildOpenApiDocument())) as Json;
const components = (document.components as { schemas: Record<string, Json> }).schemas;
const webhooks = document.webhooks as Record<string, { post: { requestBody: { content: Record<string, Json> } } }>;

const BASE = "https://gateway.test/openapi.json";
/** The document's schemas in ajv, its local refs made absolute, to compare verdicts with the catalogue's. */
const documentAjv = new Ajv2020({ strict: false });
documentAjv.addSchema({ $id: BASE, components: document.components as Json });
const absolute = (node: unknown): Json =>
  JSON.parse(JSON.stringify(node).replaceAll('"#/components/', `"${BASE}#/components/`)) as Json;

let gateway: TestGateway;
let account: TestAccount;

beforeAll(async () => {
  gateway = await startTestGateway();
  account = await createTestAccount(gateway.db);
});
afterAll(async () => {
  await gateway.close();
});

describe("GET /public/v1/event-types", () => {
  it("lists each webhook of the document once, in order, with its schema, an example and a Portuguese description", async () => {
    const res = await request(gateway.app).get("/public/v1/event-types").set(account.auth);
    expect(res.status).toBe(200);
    const eventTypes = res.body.data.event_types as {
      name: string;
      description: string;
      schema: Json;
      example: Json;
    }[];
    expect(eventTypes.map((type) => type.name)).toEqual([...WEBHOOK_EVENT_NAMES]);
    expect(Object.keys(webhooks).sort()).toEqual([...WEBHOOK_EVENT_NAMES].sort());

    for (const type of eventTypes) {
      // The document's schema with its components in place: no $ref left, the same fields, the same verdicts.
      const body = webhooks[type.name]?.post.requestBody.content["application/json"] as {
        schema: { $ref: string };
        examples: Record<string, { value: Json }>;
      };
      const component = components[body.schema.$ref.replace("#/components/schemas/", "")] as Json;
      expect(JSON.stringify(type.schema)).not.toContain("$ref");
      expect(type.schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect({
        name: type.name,
        required: type.schema.required,
        fields: Object.keys(type.schema.properties as Json),
      }).toEqual({
        name: type.name,
        required: component.required,
        fields: Object.keys(component.properties as Json),
      });
      const ours = new Ajv2020({ strict: false }).compile(type.schema);
      const theirs = documentAjv.compile(absolute(body.schema));
      const examples = Object.values(body.examples).map((example) => example.value);
      const bodies = examples.flatMap((example) => [
        example,
        { ...example, data: {} },
        { ...example, event: "outro.evento" },
        { ...example, data: { ...(example.data as Json), phone_number_id: 5 } },
      ]);
      expect(bodies.map((candidate) => ours(candidate))).toEqual(bodies.map((candidate) => theirs(candidate)));
      expect(bodies.map((candidate) => ours(candidate)).filter(Boolean).length).toBe(examples.length);

      // The catalogue's example is valid against its schema.
      expect({ name: type.name, valid: ours(type.example), errors: ours.errors ?? null }).toEqual({
        name: type.name,
        valid: true,
        errors: null,
      });
      expect(type.example.event).toBe(type.name);
      expect(type.description).toMatch(/^[A-Z].{40,}\.$/);
    }
    expect(eventTypes.find((type) => type.name === "account.update")?.description).toContain("escolheram");
  });

  it("is documented with the answer it gives as its example", async () => {
    const res = await request(gateway.app).get("/public/v1/event-types").set(account.auth);
    const operation = (document.paths as Record<string, Record<string, Json>>)["/public/v1/event-types"]?.get;
    const examples = (operation?.responses as Record<string, { content: Record<string, { examples: Json }> }>)["200"]
      ?.content["application/json"]?.examples as Record<string, { value: unknown }>;
    expect(examples.catalogue?.value).toEqual(res.body);
  });

  it("needs the API key", async () => {
    const res = await request(gateway.app).get("/public/v1/event-types");
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("invalid_api_key");
  });
});
