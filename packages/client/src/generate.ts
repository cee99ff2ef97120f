import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { format, resolveConfig } from "prettier";

/**
 * The client's generated files from an OpenAPI document: `schema.ts` (openapi-typescript's types, which
 * openapi-fetch reads) and `operations.ts` (each operation's method, path and whether it takes an
 * `Idempotency-Key`, which the retries need at run time). Both are Prettier-formatted with the repository's
 * settings, so `pnpm client:generate` writes exactly what the drift test compares. Not part of the package's
 * exports: used by scripts/client-generate.ts and by that test.
 */

export const GENERATED_FILES = ["schema.ts", "operations.ts"] as const;
export type GeneratedFile = (typeof GENERATED_FILES)[number];

const BANNER = "// Generated from the gateway's OpenAPI document by `pnpm client:generate`. Do not edit.\n";
const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

type Json = Record<string, unknown>;

function isJson(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One operation of the document's `paths`, as the client's run-time table lists it. */
export interface DocumentOperation {
  operationId: string;
  method: (typeof HTTP_METHODS)[number];
  path: string;
  idempotencyKey: boolean;
}

/** Every operation of the document, in its order. An operation without an operationId is an error. */
export function documentOperations(document: object): DocumentOperation[] {
  const paths = (document as Json).paths;
  if (!isJson(paths)) return [];
  return Object.entries(paths).flatMap(([path, item]) =>
    HTTP_METHODS.flatMap((method) => {
      const operation = isJson(item) ? item[method] : undefined;
      if (!isJson(operation)) return [];
      if (typeof operation.operationId !== "string") throw new Error(`${method} ${path} has no operationId`);
      const parameters = Array.isArray(operation.parameters) ? (operation.parameters as unknown[]) : [];
      const idempotencyKey = parameters.some(
        (p) => isJson(p) && p.in === "header" && String(p.name).toLowerCase() === "idempotency-key",
      );
      return [{ operationId: operation.operationId, method, path, idempotencyKey }];
    }),
  );
}

async function prettier(text: string, fileName: string): Promise<string> {
  const config = (await resolveConfig(new URL(`../../../${fileName}`, import.meta.url))) ?? {};
  return format(text, { ...config, parser: "typescript" });
}

/** The text of each generated file for `document`. */
export async function generateClientFiles(document: object): Promise<Record<GeneratedFile, string>> {
  // defaultNonNullable off: a request field with a default (`language`, `limit`...) stays optional, as the API reads it.
  const schema = astToString(await openapiTS(structuredClone(document) as OpenAPI3, { defaultNonNullable: false }));
  const table = Object.fromEntries(
    documentOperations(document).map(({ operationId, ...rest }) => [operationId, rest] as const),
  );
  const operations =
    `${BANNER}\n/** Each operation of the document: its method, its path and whether it takes an \`Idempotency-Key\`. */\n` +
    `export const OPERATIONS = ${JSON.stringify(table, null, 2)} as const;\n\n` +
    "export type OperationId = keyof typeof OPERATIONS;\n";
  return {
    "schema.ts": await prettier(`${BANNER}${schema}`, "schema.ts"),
    "operations.ts": await prettier(operations, "operations.ts"),
  };
}
