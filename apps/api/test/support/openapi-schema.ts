// The public OpenAPI document as the endpoint tests read it (not a test file itself): walked by path, and its schemas
// compiled with Ajv, their `$ref`s made absolute against the document's own components.
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import request from "supertest";
import type { TestGateway } from "@gw/test-stack";

export type Json = Record<string, unknown>;

export const isJson = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The object at `path` under `root`; throws when there is none. */
export function at(root: unknown, ...path: string[]): Json {
  let current: unknown = root;
  for (const key of path) current = isJson(current) ? current[key] : undefined;
  if (!isJson(current)) throw new Error(`nada em ${path.join(" / ")}`);
  return current;
}

const BASE = "https://gateway.test/openapi.json";

function absoluteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(absoluteRefs);
  if (!isJson(node)) return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      k === "$ref" && typeof v === "string" && v.startsWith("#/") ? `${BASE}${v}` : absoluteRefs(v),
    ]),
  );
}

export interface ServedDocument {
  /** The document as GET /public/v1/openapi.json serves it. */
  json: Json;
  /** A schema of the document (e.g. `at(json, …, "schema")`) compiled, its references resolved in the document. */
  compile(schema: Json): ValidateFunction;
}

/** The gateway's served OpenAPI document, its components registered for `compile`. */
export async function servedDocument(gateway: TestGateway): Promise<ServedDocument> {
  const json = (await request(gateway.app).get("/public/v1/openapi.json")).body as Json;
  return { json, compile: documentCompiler(json) };
}

/** Compiles schemas of `document` with Ajv (JSON Schema 2020-12), their `$ref`s resolved in its components. */
export function documentCompiler(document: Json): (schema: unknown) => ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: BASE, components: at(document, "components") });
  return (schema) => ajv.compile(absoluteRefs(schema) as Json);
}
