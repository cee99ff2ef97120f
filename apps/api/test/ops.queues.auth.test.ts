import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { ConfigError } from "@gw/config";
import { createInternalApp } from "../src/app.ts";
import { loadApiConfig } from "../src/config.ts";
import { startTestGateway, type TestGateway } from "@gw/test-stack";

// Bull Board at /ops/queues on the internal listener (docs/decisions.md): never open by default; behind HTTP Basic
// when OPS_USER and OPS_PASSWORD are set. The public listener never serves it (ops.internal-listener.test.ts).
const OPS_USER = "oncall";
const OPS_PASSWORD = "s3nha-de-plantao-longa";
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`, "utf8").toString("base64")}`;

const BOARD_PATHS = ["/ops/queues", "/ops/queues/", "/ops/queues/api/queues", "/ops/queues/queue/webhook-deliveries"];

describe("Bull Board without OPS_USER/OPS_PASSWORD", () => {
  let gateway: TestGateway;
  let internal: ReturnType<typeof createInternalApp>;
  beforeAll(async () => {
    gateway = await startTestGateway();
    internal = createInternalApp(gateway.deps);
  });
  afterAll(async () => {
    await gateway.close();
  });

  it.each(BOARD_PATHS)("%s is not served: 404 with the error envelope", async (path) => {
    const res = await request(internal).get(path);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: { code: "not_found" } });
    expect(res.text).not.toContain("bull");
  });

  it("is not served either with any credentials presented", async () => {
    const res = await request(internal)
      .get("/ops/queues/api/queues")
      .set("Authorization", basic(OPS_USER, OPS_PASSWORD));
    expect(res.status).toBe(404);
  });
});

describe("Bull Board with only one of OPS_USER/OPS_PASSWORD", () => {
  it.each([
    ["OPS_USER only", { OPS_USER }, "OPS_PASSWORD"],
    ["OPS_PASSWORD only", { OPS_PASSWORD }, "OPS_USER"],
  ])("%s: the API refuses to start, naming the missing variable", (_name, env, missing) => {
    const base = {
      DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/x",
      REDIS_URL: "redis://127.0.0.1:6379",
      META_ACCESS_TOKEN: "token-123",
      META_APP_SECRET: "secret-123",
      META_VERIFY_TOKEN: "verify-123",
    };
    const load = () => loadApiConfig({ ...base, ...env });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(new RegExp(`${missing}: obrigatória quando`));
  });
});

describe("Bull Board with OPS_USER/OPS_PASSWORD", () => {
  let gateway: TestGateway;
  let internal: ReturnType<typeof createInternalApp>;
  beforeAll(async () => {
    gateway = await startTestGateway({ env: { OPS_USER, OPS_PASSWORD } });
    internal = createInternalApp(gateway.deps);
  });
  afterAll(async () => {
    await gateway.close();
  });

  const expectChallenge = (res: request.Response) => {
    expect(res.status).toBe(401);
    expect(res.headers["www-authenticate"]).toMatch(/^Basic\b/);
    expect(res.headers["www-authenticate"]).toMatch(/realm="[^"]+"/);
    // Nothing of the board leaks with the challenge.
    expect(res.text).not.toMatch(/webhook-deliveries|<html/i);
  };

  it.each(BOARD_PATHS)("%s without credentials → 401 with WWW-Authenticate: Basic", async (path) => {
    expectChallenge(await request(internal).get(path));
  });

  it.each([
    ["wrong password", () => basic(OPS_USER, "senha-errada-mas-longa")],
    ["right password with a suffix", () => basic(OPS_USER, `${OPS_PASSWORD}x`)],
    ["password prefix", () => basic(OPS_USER, OPS_PASSWORD.slice(0, -1))],
    ["wrong user", () => basic("outro", OPS_PASSWORD)],
    ["empty user and password", () => basic("", "")],
    ["user without password", () => `Basic ${Buffer.from(OPS_USER).toString("base64")}`],
    ["credentials not base64-encoded", () => `Basic ${OPS_USER}:${OPS_PASSWORD}`],
    ["Bearer scheme with the password", () => `Bearer ${OPS_PASSWORD}`],
    ["`Basic` alone", () => "Basic"],
  ])("%s → 401 with WWW-Authenticate: Basic", async (_name, header) => {
    expectChallenge(await request(internal).get("/ops/queues/api/queues").set("Authorization", header()));
    expectChallenge(await request(internal).get("/ops/queues").set("Authorization", header()));
  });

  it("right credentials → the board's HTML page", async () => {
    const page = await request(internal)
      .get("/ops/queues")
      .set("Authorization", basic(OPS_USER, OPS_PASSWORD))
      .redirects(0);
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.text).toMatch(/<html/i);
  });

  it("right credentials → its API lists the webhook delivery queue", async () => {
    const res = await request(internal)
      .get("/ops/queues/api/queues")
      .set("Authorization", basic(OPS_USER, OPS_PASSWORD));
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    const queues = (res.body as { queues?: { name?: unknown }[] }).queues ?? [];
    expect(queues.map((q) => q.name)).toEqual(["webhook-deliveries"]);
  });

  it("the public API keys play no part: a Bearer API key does not open the board", async () => {
    const res = await request(internal)
      .get("/ops/queues/api/queues")
      .set("Authorization", "Bearer pt_live_" + "a".repeat(43));
    expectChallenge(res);
  });
});
