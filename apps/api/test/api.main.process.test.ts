import { describe, expect, it } from "@jest/globals";
import { createSqlPool } from "@gw/db";
import { spawnApp } from "@gw/test-stack";
import { eventually, freePort, testEnv } from "@gw/testkit";

/** `node dist/api/main.mjs`, one process, as the API pod runs it. */
const spawnApi = (env: Record<string, string>) => spawnApp("api", env);

async function waitForStatus(url: string, status: number): Promise<void> {
  let last = 0;
  await eventually(
    async () => {
      last = await fetch(url).then(
        (r) => r.status,
        () => 0,
      );
      return last === status;
    },
    { timeoutMs: 20_000, intervalMs: 100 },
  ).catch(() => {
    throw new Error(`${url} não respondeu ${status} a tempo (último: ${last})`);
  });
}

const base = () => {
  const env = testEnv();
  return {
    DATABASE_URL: env.databaseUrl,
    REDIS_URL: env.redisUrl,
    REDIS_KEY_PREFIX: env.redisPrefix,
    META_BASE_URL: "http://127.0.0.1:9",
    META_ACCESS_TOKEN: "test-access-token",
    META_APP_SECRET: "test-app-secret",
    META_VERIFY_TOKEN: "test-verify-token",
  };
};

describe("the API process (main.ts)", () => {
  it("serves /metrics only on the internal listener (API_INTERNAL_PORT), and exits 0 on SIGTERM", async () => {
    const [apiPort, metricsPort] = [await freePort(), await freePort()];
    const api = spawnApi({ ...base(), API_PORT: String(apiPort), API_INTERNAL_PORT: String(metricsPort) });
    try {
      await waitForStatus(`http://127.0.0.1:${apiPort}/readyz`, 200).catch((error: Error) => {
        throw new Error(`${error.message}\n${api.output()}`);
      });
      await waitForStatus(`http://127.0.0.1:${metricsPort}/metrics`, 200);
      const onApiPort = await fetch(`http://127.0.0.1:${apiPort}/metrics`);
      expect(onApiPort.status).toBe(404);
      expect(await onApiPort.json()).toMatchObject({ success: false, error: { code: "not_found" } });
      const scraped = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(scraped).toMatch(/^gw_http_requests_total\{method="GET",route="\/readyz",status="200"\} \d+$/m);
    } finally {
      api.child.kill("SIGTERM");
    }
    expect(await api.exited).toEqual({ code: 0, signal: null });
  }, 40_000);

  it("holds a lease while it serves and deletes it on SIGTERM, so repeats of its keys settle at once elsewhere", async () => {
    const env = base();
    const apiPort = await freePort();
    const api = spawnApi({ ...env, API_PORT: String(apiPort), API_INTERNAL_PORT: "0", LOG_LEVEL: "info" });
    const db = createSqlPool({ url: env.DATABASE_URL, max: 1, connectionTimeoutMs: 10_000 });
    try {
      await waitForStatus(`http://127.0.0.1:${apiPort}/readyz`, 200).catch((error: Error) => {
        throw new Error(`${error.message}\n${api.output()}`);
      });
      // Its log names the lease's owner id (one process start, one id).
      const owner = await eventually(
        () => {
          // A whole line only (the output may end mid-line).
          const line = api
            .output()
            .split("\n")
            .slice(0, -1)
            .find((l) => l.includes("process lease taken"));
          return line === undefined ? null : (JSON.parse(line) as { owner?: string }).owner;
        },
        { what: "the lease taken" },
      );
      const live = await db.query(`SELECT service FROM process_leases WHERE owner = $1::uuid AND expires_at > now()`, [
        owner,
      ]);
      expect(live.rows).toEqual([{ service: "api" }]);

      api.child.kill("SIGTERM");
      expect(await api.exited).toEqual({ code: 0, signal: null });
      expect((await db.query(`SELECT 1 FROM process_leases WHERE owner = $1::uuid`, [owner])).rowCount).toBe(0);
    } finally {
      api.child.kill("SIGKILL");
      await db.end();
    }
  }, 40_000);

  it("exits 78 naming the missing variable, without starting", async () => {
    const { META_APP_SECRET: _omitted, ...withoutSecret } = base();
    const api = spawnApi({ ...withoutSecret, API_PORT: String(await freePort()) });
    expect(await api.exited).toEqual({ code: 78, signal: null });
    expect(api.output()).toMatch(/META_APP_SECRET: obrigatória e ausente/);
  }, 40_000);
});
