import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ConfigError } from "@gw/config";
import { createDb } from "@gw/db";
import { freePort, isolatedDatabase } from "@gw/testkit";
import { loadDispatcherConfig, type Dispatcher } from "../src/index.ts";
import { spawnApp } from "@gw/test-stack";
import { REQUIRED_SETTINGS, openBed, type DispatcherBed } from "./support.ts";

let bed: DispatcherBed;

beforeAll(async () => {
  bed = openBed(await isolatedDatabase());
});

afterAll(async () => {
  await bed.close();
});

async function launch(overrides: Record<string, string>, db = bed.db): Promise<Dispatcher> {
  return bed.startDispatcher({ WEBHOOK_TIMEOUT_MS: "500", DISPATCHER_LOCK_DURATION_MS: "2000", ...overrides }, { db });
}

async function get(dispatcher: Dispatcher, path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://127.0.0.1:${dispatcher.port}${path}`);
  return { status: response.status, body: await response.text() };
}

describe("dispatcher probes", () => {
  it("answers /healthz and /readyz (Postgres and Redis up) and exposes /metrics", async () => {
    const dispatcher = await launch({});
    expect(await get(dispatcher, "/healthz")).toEqual({ status: 200, body: JSON.stringify({ status: "ok" }) });
    const ready = await get(dispatcher, "/readyz");
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({ status: "ready", checks: { postgres: "up", redis: "up" } });
    const metrics = await get(dispatcher, "/metrics");
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain("gw_webhook_attempts_total");
    expect((await get(dispatcher, "/nada")).status).toBe(404);
  });

  it("is alive but not ready when Postgres is unreachable", async () => {
    const deadDb = createDb({ url: `postgresql://postgres@127.0.0.1:${await freePort()}/inexistente` });
    try {
      const dispatcher = await launch({}, deadDb);
      expect((await get(dispatcher, "/healthz")).status).toBe(200);
      const ready = await get(dispatcher, "/readyz");
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.body)).toEqual({ status: "unavailable", checks: { postgres: "down", redis: "up" } });
    } finally {
      await bed.stopDispatchers();
      await deadDb.$disconnect();
    }
  });

  it("is alive but not ready when Redis is unreachable", async () => {
    const dispatcher = await launch({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    expect((await get(dispatcher, "/healthz")).status).toBe(200);
    const ready = await get(dispatcher, "/readyz");
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toEqual({ status: "unavailable", checks: { postgres: "up", redis: "down" } });
    await bed.stopDispatchers();
  });
});

describe("dispatcher configuration", () => {
  const base = REQUIRED_SETTINGS;

  it("defaults to the spec's schedule, 10 s time-out and ±20 % jitter", () => {
    const config = loadDispatcherConfig(base);
    expect(config.WEBHOOK_RETRY_SCHEDULE_MS).toEqual([30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000]);
    expect(config.WEBHOOK_TIMEOUT_MS).toBe(10_000);
    expect(config.WEBHOOK_RETRY_JITTER).toBe(0.2);
    expect(config.DISPATCHER_LOCK_DURATION_MS).toBeGreaterThan(config.WEBHOOK_TIMEOUT_MS);
  });

  it("refuses a job lock shorter than the attempt time-out, naming the variable", () => {
    const attempt = () =>
      loadDispatcherConfig({ ...base, WEBHOOK_TIMEOUT_MS: "10000", DISPATCHER_LOCK_DURATION_MS: "5000" });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/DISPATCHER_LOCK_DURATION_MS/);
  });

  it("main.ts exits 78 with a Portuguese message when a required variable is missing", async () => {
    const child = spawnApp("dispatcher", { REDIS_URL: "redis://127.0.0.1:6379" });
    expect(await child.exited).toEqual({ code: 78, signal: null });
    expect(child.lines.join("\n")).toMatch(/DATABASE_URL: obrigatória e ausente/);
  }, 30_000);
});
