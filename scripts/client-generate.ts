// `pnpm client:generate`: regenerates packages/client/src/schema.ts and operations.ts from the OpenAPI document,
// built in this process from apps/api's route modules (no server). Run it after changing an operation or a schema;
// the drift test (apps/api/test/client.schema.drift.test.ts) fails until it is run.
import { writeFile } from "node:fs/promises";
import { buildOpenApiDocument } from "../apps/api/src/openapi.ts";
import { generateClientFiles } from "../packages/client/src/generate.ts";

const files = await generateClientFiles(buildOpenApiDocument());
for (const [name, text] of Object.entries(files)) {
  const url = new URL(`../packages/client/src/${name}`, import.meta.url);
  await writeFile(url, text);
  console.log(`escrito ${url.pathname}`);
}
