// The campaign worker follows number changes by LISTEN. Behind PgBouncer in transaction mode (production: DATABASE_URL)
// a LISTEN does not hold, so the session goes to DATABASE_LISTEN_URL, straight to PostgreSQL, as the API's does: one
// per pod, counted in docs/deploy.md's connection budget and by the topology run.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createSqlPool } from "@gw/db";
import { createTempDatabase, eventually, silentLogger } from "@gw/testkit";
import { createCampaignWorker, loadCampaignWorkerConfig, type CampaignWorker } from "../src/index.ts";
import { startCampaignStack } from "@gw/test-stack";
import { workerSettings, type Stack } from "./support.ts";

let stack: Stack;
let listenDatabase: Awaited<ReturnType<typeof createTempDatabase>>;
let worker: CampaignWorker;

beforeAll(async () => {
  stack = await startCampaignStack();
  // A database nothing else uses: a LISTEN session there can only be the one DATABASE_LISTEN_URL made.
  listenDatabase = await createTempDatabase();
  // No `db` handed in: the worker builds its own from the configuration, as in production.
  worker = createCampaignWorker(
    loadCampaignWorkerConfig(workerSettings(stack, { DATABASE_LISTEN_URL: listenDatabase.url })),
    { logger: silentLogger },
  );
  await worker.start();
});

afterAll(async () => {
  await worker.stop();
  await listenDatabase.drop();
  await stack.close();
});

async function listenSessions(url: string): Promise<number> {
  const pool = createSqlPool({ url, max: 1, connectionTimeoutMs: 5_000 });
  try {
    const { rows } = await pool.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM pg_stat_activity
        WHERE datname = current_database() AND query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
    );
    return rows[0]?.count ?? 0;
  } finally {
    await pool.end();
  }
}

describe("the campaign worker's LISTEN", () => {
  it("holds one session on DATABASE_LISTEN_URL and none on DATABASE_URL", async () => {
    await eventually(async () => (await listenSessions(listenDatabase.url)) > 0, {
      what: "a LISTEN session on DATABASE_LISTEN_URL",
    });
    expect(await listenSessions(listenDatabase.url)).toBe(1);
    expect(await listenSessions(stack.databaseUrl)).toBe(0);
  });
});
