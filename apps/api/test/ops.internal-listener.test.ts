import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { once } from "node:events";
import request from "supertest";
import { ConfigError } from "@gw/config";
import { REPO_ROOT } from "@gw/testkit";
import { createInternalApp } from "../src/app.ts";
import { loadApiConfig } from "../src/config.ts";
import { startTestGateway, type TestGateway } from "@gw/test-stack";

// /metrics and Bull Board are served by the internal listener (API_INTERNAL_HOST:API_INTERNAL_PORT, loopback:8082
// by default), never by the public one; known default or weak OPS_PASSWORD values stop the API at start-up.

const OPS_USER = "oncall";
const OPS_PASSWORD = "s3nha-de-plantao-longa";
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`, "utf8").toString("base64")}`;

const base = {
  DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/x",
  REDIS_URL: "redis://127.0.0.1:6379",
  META_ACCESS_TOKEN: "token-123",
  META_APP_SECRET: "secret-123",
  META_VERIFY_TOKEN: "verify-123",
};

describe("the internal listener", () => {
  let gateway: TestGateway;
  let internal: ReturnType<typeof createInternalApp>;

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { OPS_USER, OPS_PASSWORD } });
    internal = createInternalApp(gateway.deps);
  });
  afterAll(async () => {
    await gateway.close();
  });

  it("is on loopback port 8082 by default", () => {
    const config = loadApiConfig(base);
    expect({ host: config.API_INTERNAL_HOST, port: config.API_INTERNAL_PORT }).toEqual({
      host: "127.0.0.1",
      port: 8082,
    });
  });

  it("the public listener serves neither /metrics nor Bull Board (404 envelope), even with the board's credentials", async () => {
    for (const path of ["/metrics", "/ops/queues", "/ops/queues/api/queues"]) {
      const res = await request(gateway.app).get(path).set("Authorization", basic(OPS_USER, OPS_PASSWORD));
      expect({ path, status: res.status, code: res.body?.error?.code }).toEqual({
        path,
        status: 404,
        code: "not_found",
      });
    }
  });

  it("serves /metrics with the public listener's request counts", async () => {
    expect((await request(gateway.app).get("/healthz")).status).toBe(200);
    const res = await request(internal).get("/metrics");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/^gw_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+$/m);
  });

  it("serves Bull Board behind HTTP Basic", async () => {
    expect((await request(internal).get("/ops/queues/api/queues")).status).toBe(401);
    const res = await request(internal)
      .get("/ops/queues/api/queues")
      .set("Authorization", basic(OPS_USER, OPS_PASSWORD));
    expect(res.status).toBe(200);
    expect((res.body as { queues: { name: string }[] }).queues.map((q) => q.name)).toEqual(["webhook-deliveries"]);
  });

  it("anything else is a 404 envelope", async () => {
    const res = await request(internal).get("/public/v1/templates");
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: { code: "not_found" } });
  });
});

describe("OPS_PASSWORD: known defaults and weak values stop the API", () => {
  it.each([
    ["the value .env.example used to ship", "change-me-please"],
    ["a known default with punctuation and case", "Change_Me_Please!"],
    ["a known default with digits around it", "2024password1234"],
    ["a repeated default", "adminadminadmin"],
    ["only digits", "123456789012345"],
    ["one character repeated", "aaaaaaaaaaaaaaaa"],
    ["the user name (repeated to reach 12 characters)", "oncall-oncall-oncall"],
  ])("%s is refused, naming OPS_PASSWORD without echoing it", (_case, password) => {
    let caught: unknown;
    try {
      loadApiConfig({ ...base, OPS_USER, OPS_PASSWORD: password });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variables).toEqual(["OPS_PASSWORD"]);
    expect((caught as ConfigError).message).toMatch(/OPS_PASSWORD: é uma senha padrão/);
    expect((caught as ConfigError).message).not.toContain(password);
  });

  it("a long random password is accepted", () => {
    expect(loadApiConfig({ ...base, OPS_USER, OPS_PASSWORD: "q7Vx-2mLp9-Zr4tK8w" }).OPS_PASSWORD).toBe(
      "q7Vx-2mLp9-Zr4tK8w",
    );
  });

  it("empty OPS_USER and OPS_PASSWORD (as in .env.example) mean unset: no board, no error", () => {
    const config = loadApiConfig({ ...base, OPS_USER: "", OPS_PASSWORD: "" });
    expect({ user: config.OPS_USER, password: config.OPS_PASSWORD }).toEqual({ user: undefined, password: undefined });
  });

  it("the process exits 78 with the message, before listening", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "apps/api/src/main.ts"], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        ...base,
        OPS_USER: "ops",
        OPS_PASSWORD: "change-me-please",
        API_PORT: "0",
        API_INTERNAL_PORT: "0",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    // Had it started, it would listen (API_INTERNAL_PORT 0: nothing else): stop it after a while either way.
    const stop = setTimeout(() => child.kill("SIGKILL"), 20_000);
    try {
      const [code] = (await once(child, "exit")) as [number | null];
      expect(code).toBe(78);
      expect(stderr).toMatch(/OPS_PASSWORD: é uma senha padrão/);
    } finally {
      clearTimeout(stop);
      child.kill("SIGKILL");
    }
  }, 30_000);
});
