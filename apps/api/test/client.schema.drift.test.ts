import { readFile } from "node:fs/promises";
import { describe, expect, it } from "@jest/globals";
import { GENERATED_FILES, generateClientFiles } from "../../../packages/client/src/generate.ts";
import { buildOpenApiDocument } from "../src/openapi.ts";

// The typed client (packages/client) is generated from the OpenAPI document; its committed generated files must be
// what the live document generates today, so a new or changed operation cannot ship with a stale client.

const committed = (name: string) => readFile(new URL(`../../../packages/client/src/${name}`, import.meta.url), "utf8");

describe("@pt-gateway/client generated code", () => {
  it("is what `pnpm client:generate` writes from the live OpenAPI document", async () => {
    const generated = await generateClientFiles(buildOpenApiDocument());
    for (const name of GENERATED_FILES) {
      if ((await committed(name)) !== generated[name])
        throw new Error(
          `packages/client/src/${name} não corresponde ao documento OpenAPI atual: rode \`pnpm client:generate\` e faça commit do resultado.`,
        );
    }
  }, 60_000);

  it("differs as soon as the document gains an operation (the comparison can fail)", async () => {
    const document = buildOpenApiDocument();
    const extra = structuredClone(document.paths?.["/public/v1/usage"]);
    const changed = { ...document, paths: { ...document.paths, "/public/v1/usage-copy": extra } };
    const generated = await generateClientFiles(
      JSON.parse(JSON.stringify(changed).replace('"getUsage"', '"getUsageCopy"')) as object,
    );
    expect(generated["schema.ts"]).toContain('"/public/v1/usage-copy"');
    expect(generated["schema.ts"]).not.toBe(await committed("schema.ts"));
    expect(generated["operations.ts"]).toContain("getUsageCopy");
  }, 60_000);
});
