import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { createDb } from "@gw/db";
import { createRedis } from "@gw/jobs";
import { silentLogger, startThrowawayRedis, testEnv } from "@gw/testkit";
import { createApp } from "../src/app.ts";
import { buildApiDeps, closeApiDeps, type ApiDeps } from "../src/container.ts";
import { loadApiConfig } from "../src/config.ts";

describe("health and readiness", () => {
  const env = testEnv();
  const db = createDb({ url: env.databaseUrl, poolSize: 2 });
  let redisServer: Awaited<ReturnType<typeof startThrowawayRedis>>;
  let redis: ReturnType<typeof createRedis>;
  let app: ReturnType<typeof createApp>;
  let deps: ApiDeps;

  beforeAll(async () => {
    redisServer = await startThrowawayRedis();
    redis = createRedis(redisServer.url, "request", { connectTimeout: 300 });
    redis.on("error", () => undefined);
    await redis.ping();
    const config = loadApiConfig({
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: redisServer.url,
      META_ACCESS_TOKEN: "sandbox-token",
      META_APP_SECRET: "sandbox-secret",
      META_VERIFY_TOKEN: "sandbox-verify",
    });
    deps = buildApiDeps(config, silentLogger, { db, redis });
    app = createApp(deps);
  });
  afterAll(async () => {
    redis.disconnect();
    await redisServer.stop();
    // Also ends the revocations' LISTEN connection, which kept the jest worker from exiting.
    await closeApiDeps(deps);
  });

  it("/healthz answers while the process is alive and echoes X-Request-Id", async () => {
    const res = await request(app).get("/healthz").set("X-Request-Id", "req-123");
    expect(res.status).toBe(200);
    expect(res.headers["x-request-id"]).toBe("req-123");
  });

  it("generates a request id when none (or a malformed one) is given", async () => {
    const res = await request(app).get("/healthz").set("X-Request-Id", "bad id with spaces");
    expect(res.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("/readyz is 200 with Postgres and Redis up, then 503 once Redis is stopped", async () => {
    const up = await request(app).get("/readyz");
    expect(up.status).toBe(200);
    expect(up.body).toEqual({ status: "ready", checks: { postgres: "up", redis: "up" } });

    await redisServer.stop();
    const down = await request(app).get("/readyz");
    expect(down.status).toBe(503);
    expect(down.body.checks).toEqual({ postgres: "up", redis: "down" });
  });

  it("unknown routes answer the error envelope", async () => {
    const res = await request(app).get("/nope");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: { code: "not_found", message: expect.any(String) } });
  });
});
