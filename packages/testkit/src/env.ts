import { randomBytes } from "node:crypto";
import pg from "pg";
import { applyMigrations, createDb, type Db } from "@gw/db";

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

/** A migrated database of its own, for tests that scan whole tables (the reconciler's sweep); `drop()` removes it. */
export async function isolatedDatabase(): Promise<{ url: string; db: Db; drop: () => Promise<void> }> {
  const temp = await createTempDatabase();
  await applyMigrations(temp.url);
  const db = createDb({ url: temp.url, poolSize: 5 });
  // Load Prisma's query compiler now: jest refuses the lazy import once the hook that started it returned.
  await db.$queryRawUnsafe("SELECT 1");
  return {
    url: temp.url,
    db,
    drop: async () => {
      await db.$disconnect();
      await temp.drop();
    },
  };
}
