import { randomBytes } from "node:crypto";
import pg from "pg";

export interface TestEnv {
  databaseUrl: string;
  redisUrl: string;
  /** A fresh key prefix so parallel test files never share queues, caches or rate-limit buckets. */
  redisPrefix: string;
}

/** The stack started by scripts/test.sh. */
export function testEnv(): TestEnv {
  const databaseUrl = process.env.DATABASE_URL;
  const redisUrl = process.env.REDIS_URL;
  if (!databaseUrl || !redisUrl) throw new Error("DATABASE_URL e REDIS_URL ausentes: rode os testes com `npm test`.");
  return { databaseUrl, redisUrl, redisPrefix: `t${randomBytes(4).toString("hex")}` };
}

/** An empty database on the test server; `drop()` removes it. */
export async function createTempDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = new URL(testEnv().databaseUrl);
  const name = `gw_tmp_${randomBytes(5).toString("hex")}`;
  const admin = new URL(base);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`CREATE DATABASE "${name}"`);
  await client.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: admin.toString() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}
