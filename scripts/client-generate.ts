// `pnpm client:generate`: regenerates the integrators' generated code. packages/client/src/schema.ts and
// operations.ts come from the OpenAPI document, built in this process from apps/api's route modules (no server);
// packages/receiver/src/schema.ts from the webhook schemas of @gw/contracts. Run it after changing an operation, a
// schema or a webhook event; the drift tests (apps/api/test/client.schema.drift.test.ts,
// packages/receiver/test/receiver.schema.drift.test.ts) fail until it is run.
import { writeFile } from "node:fs/promises";
import { buildOpenApiDocument } from "../apps/api/src/openapi.ts";
import { generateClientFiles } from "../packages/client/src/generate.ts";
import { GENERATED_FILE, generateReceiverSchema } from "../packages/receiver/src/generate.ts";

const files: [URL, string][] = [
  ...Object.entries(await generateClientFiles(buildOpenApiDocument())).map(
    ([name, text]) => [new URL(`../packages/client/src/${name}`, import.meta.url), text] as [URL, string],
  ),
  [new URL(`../packages/receiver/src/${GENERATED_FILE}`, import.meta.url), await generateReceiverSchema()],
];
for (const [url, text] of files) {
  await writeFile(url, text);
  console.log(`escrito ${url.pathname}`);
}
