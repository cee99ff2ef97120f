import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { buildOpenApiDocument } from "../src/openapi.ts";
import { PUBLIC_PREFIX } from "../src/routes/public/index.ts";
import { OPENAPI_PATH } from "../src/routes/docs.ts";
import { startTestGateway, type TestGateway } from "@gw/test-stack";

// Every route Express serves under /public/v1 is documented, and every documented operation is served:
// found by walking the router stack of the real app, not from a list kept by hand.

/** What this test reads of an Express 5 (router 2) layer. */
interface RouterLayer {
  rawPath?: string | string[];
  route?: { path: string | string[]; methods: Record<string, boolean | undefined> };
  handle?: { stack?: RouterLayer[] };
}

function joinPath(prefix: string, path: string): string {
  const base = prefix === "/" ? "" : prefix;
  return `${base}${path === "/" ? "" : path}` || "/";
}

/** "METHOD /full/path" of every route, descending into mounted routers. */
function servedRoutes(stack: readonly RouterLayer[], prefix = ""): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      const methods = Object.keys(layer.route.methods).filter((m) => m !== "_all" && layer.route?.methods[m]);
      return paths.flatMap((path) => methods.map((method) => `${method.toUpperCase()} ${joinPath(prefix, path)}`));
    }
    const nested = layer.handle?.stack;
    if (!nested) return [];
    const mounts = Array.isArray(layer.rawPath) ? layer.rawPath : [layer.rawPath ?? "/"];
    return mounts.flatMap((mount) => servedRoutes(nested, joinPath(prefix, mount)));
  });
}

/** Express `:param` to OpenAPI `{param}`. */
const toOpenApiPath = (route: string) => route.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

function documentedOperations(): string[] {
  const paths = buildOpenApiDocument().paths ?? {};
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => ["get", "put", "post", "delete", "patch", "options", "head", "trace"].includes(key))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

describe("OpenAPI route coverage", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  it("the routes Express serves under /public/v1 are exactly the documented operations (the document itself aside)", () => {
    const router = (gateway.app as unknown as { router: { stack: RouterLayer[] } }).router;
    const all = servedRoutes(router.stack);
    // The walk sees the app's own routes too (a sanity check that it works at all).
    expect(all).toEqual(expect.arrayContaining(["GET /healthz", `GET ${OPENAPI_PATH}`, "GET /docs"]));

    // openapi.json is served outside the key check and describes the contract rather than being part of it.
    const served = all
      .filter((route) => route.split(" ")[1]?.startsWith(`${PUBLIC_PREFIX}/`))
      .filter((route) => route !== `GET ${OPENAPI_PATH}`)
      .map(toOpenApiPath);
    const documented = documentedOperations();

    expect(served.length).toBeGreaterThanOrEqual(8);
    expect([...new Set(served)].sort()).toEqual([...documented].sort());
  });
});
