import { readdirSync } from "node:fs";
import { describe, expect, it } from "@jest/globals";
import { PUBLIC_PREFIX, PUBLIC_ROUTES } from "../src/routes/public/index.ts";

// A public endpoint is one module under src/routes/public, exporting `register` and its OpenAPI `operations`; the
// folder's index discovers them for app.ts and the document, so adding one touches no other file.
const folder = new URL("../src/routes/public/", import.meta.url);
const moduleFiles = readdirSync(folder).filter((name) => name.endsWith(".ts") && name !== "index.ts");

describe("public route modules", () => {
  it("every module of the folder is discovered into PUBLIC_ROUTES, once", async () => {
    const modules = await Promise.all(
      moduleFiles.map(async (name) => (await import(new URL(name, folder).pathname)) as object),
    );
    expect(modules.length).toBeGreaterThanOrEqual(5);
    for (const [i, module] of modules.entries()) {
      expect({ file: moduleFiles[i], listed: PUBLIC_ROUTES.filter((route) => route === module).length }).toEqual({
        file: moduleFiles[i],
        listed: 1,
      });
    }
    expect(PUBLIC_ROUTES.length).toBe(modules.length);
  });

  it("each declares at least one operation, with a path relative to the prefix", () => {
    for (const route of PUBLIC_ROUTES) {
      expect(typeof route.register).toBe("function");
      expect(route.operations.length).toBeGreaterThan(0);
      for (const operation of route.operations) {
        expect(operation.path).toMatch(/^\/[a-z]/);
        expect(operation.path.startsWith(PUBLIC_PREFIX)).toBe(false);
      }
    }
  });
});
