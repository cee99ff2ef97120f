import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ConfigError } from "@gw/config";
import { eventually, silentLogger } from "@gw/testkit";
import { createCampaignWorker, loadCampaignWorkerConfig, type CampaignWorker } from "../src/index.ts";
import { startCampaignStack } from "@gw/test-stack";
import { workerSettings, type Stack } from "./support.ts";

let stack: Stack;
let worker: CampaignWorker;

beforeAll(async () => {
  stack = await startCampaignStack();
  worker = createCampaignWorker(loadCampaignWorkerConfig(workerSettings(stack)), {
    logger: silentLogger,
    db: stack.db,
  });
  await worker.start();
});

afterAll(async () => {
  await worker.stop();
  await stack.close();
});

async function get(path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://127.0.0.1:${worker.port}${path}`);
  return { status: response.status, body: await response.text() };
}

describe("campaign worker process", () => {
  it("answers /healthz and /readyz (PostgreSQL and Redis up) and exposes /metrics on its own port", async () => {
    expect(await get("/healthz")).toEqual({ status: 200, body: JSON.stringify({ status: "ok" }) });
    const ready = await get("/readyz");
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({ status: "ready", checks: { postgres: "up", redis: "up" } });
    const metrics = await get("/metrics");
    expect(metrics.body).toContain("gw_campaign_ticks_total");
    expect(metrics.body).toContain("gw_campaign_queue_jobs");
    expect((await get("/nada")).status).toBe(404);
  });

  it("holds a lease while it runs and deletes it on stop", async () => {
    const leases = async () =>
      (
        await stack.db.sql.query<{ owner: string }>(
          `SELECT owner FROM process_leases WHERE service = 'campaign-worker' AND expires_at > now()`,
        )
      ).rows.map((row) => row.owner);
    await eventually(async () => (await leases()).length === 1, { what: "the first worker's lease" });
    const [first] = await leases();
    const second = createCampaignWorker(loadCampaignWorkerConfig(workerSettings(stack)), {
      logger: silentLogger,
      db: stack.db,
    });
    await second.start();
    try {
      await eventually(async () => (await leases()).length === 2, { what: "the second worker's lease" });
    } finally {
      await second.stop();
    }
    expect(await leases()).toEqual([first]);
  });

  it("refuses a re-drive bound a live send could outlast, naming the variable in Portuguese", () => {
    const settings = workerSettings(stack, { META_TIMEOUT_MS: "15000", CAMPAIGN_REDRIVE_AFTER_MS: "20000" });
    let error: unknown;
    try {
      loadCampaignWorkerConfig(settings);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toEqual(["CAMPAIGN_REDRIVE_AFTER_MS"]);
    expect((error as ConfigError).message).toContain("deve ser ao menos META_TIMEOUT_MS + CAMPAIGN_TURN_MAX_WAIT_MS");
  });
});
