import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { buildOpenApiDocument } from "../src/openapi.ts";
import { startTestGateway, type TestGateway } from "@gw/test-stack";

// The document and the docs page are public, and the page works offline: every asset it names is served here.

describe("GET /public/v1/openapi.json and GET /docs", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  it("openapi.json answers 200 JSON without a key, OpenAPI 3.1, the same document the contracts build", async () => {
    const res = await request(gateway.app).get("/public/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body.openapi).toMatch(/^3\.1\.\d+$/);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    // Not behind the key check: even a wrong key does not get a 401.
    const withBadKey = await request(gateway.app).get("/public/v1/openapi.json").set("Authorization", "Bearer errada");
    expect(withBadKey.status).toBe(200);
  });

  it("the other /public/v1 routes still need the key", async () => {
    const res = await request(gateway.app).get("/public/v1/templates");
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("invalid_api_key");
  });

  it("/docs answers HTML whose scripts, styles and icons are local URLs that answer 200", async () => {
    const page = await request(gateway.app).get("/docs");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    const html = page.text;
    const urls = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? "");
    expect(urls.length).toBeGreaterThanOrEqual(3);
    expect(urls.some((u) => u.endsWith("swagger-ui-bundle.js"))).toBe(true);
    expect(urls.some((u) => u.endsWith("swagger-ui.css"))).toBe(true);
    for (const url of urls) {
      // Local: same origin, no CDN.
      expect(url).toMatch(/^\/(?!\/)/);
      const asset = await request(gateway.app).get(url);
      expect({ url, status: asset.status }).toEqual({ url, status: 200 });
      expect(Number(asset.headers["content-length"] ?? asset.text?.length ?? 0)).toBeGreaterThan(0);
    }
    const scripts = urls.filter((u) => u.endsWith(".js"));
    const initializer = scripts.find((u) => !u.includes("swagger-ui-bundle"));
    if (!initializer) throw new Error("a página não carrega o inicializador");
    const init = await request(gateway.app).get(initializer);
    expect(init.headers["content-type"]).toMatch(/javascript/);
    expect(init.text).toContain('"/public/v1/openapi.json"');
    expect(init.text).toContain("validatorUrl: null");
    // The stylesheet and the bundle are the ones of the installed swagger-ui-dist.
    const bundle = await request(gateway.app).get(scripts.find((u) => u.includes("swagger-ui-bundle")) ?? "");
    expect(bundle.text).toContain("SwaggerUIBundle");
  });

  it("files of swagger-ui-dist the page does not use are not served", async () => {
    for (const path of [
      "/docs/assets/index.html",
      "/docs/assets/package.json",
      "/docs/assets/..%2Fpackage.json",
      "/docs/assets/constructor",
    ]) {
      const res = await request(gateway.app).get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
  });
});
