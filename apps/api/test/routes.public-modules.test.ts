import { readdirSync } from "node:fs";
import { describe, expect, it } from "@jest/globals";
import { jsonResponse } from "@gw/contracts";
import { z } from "@gw/config";
import { ANSWERED, defineRoute } from "../src/routes/define-route.ts";
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

  it("a handler's answer is typed by its route's 2xx schema: another shape does not compile (tsc checks this file)", () => {
    const ProbeOut = z.object({
      success: z.literal(true),
      data: z.object({ id: z.string(), state: z.enum(["a", "b"]) }),
    });
    const probe = {
      method: "get",
      path: "/probe",
      operationId: "probe",
      scope: "messages:read",
      summary: "Probe",
      description: "Probe.",
      responses: { 200: jsonResponse("The probe.", ProbeOut) },
    } as const;
    const typed = defineRoute({ ...probe, handler: () => ({ id: "p1", state: "a" as const }) });
    // @ts-expect-error `id` is a string in the schema
    defineRoute({ ...probe, handler: () => ({ id: 1, state: "a" as const }) });
    // @ts-expect-error `state` is one of the schema's values, not any string
    defineRoute({ ...probe, handler: () => ({ id: "p1", state: "c" }) });
    // @ts-expect-error the envelope is defineRoute's to add: the handler answers its `data`
    defineRoute({ ...probe, handler: () => ({ success: true as const, data: { id: "p1", state: "a" as const } }) });
    // A route whose 2xx is not JSON (a file) can only have written its answer itself.
    const file = {
      description: "A file.",
      content: { "application/octet-stream": { schema: { type: "string" as const } } },
    };
    defineRoute({ ...probe, responses: { 200: file }, handler: () => ANSWERED });
    // @ts-expect-error no JSON data for a route whose 2xx is a file
    defineRoute({ ...probe, responses: { 200: file }, handler: () => ({ id: "p1", state: "a" as const }) });
    expect(typed.operations[0]?.responses[200]).toEqual(jsonResponse("The probe.", ProbeOut));
  });
});
