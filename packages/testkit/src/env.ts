import { createHmac, randomBytes } from "node:crypto";
import pg from "pg";
import { loadConfig, sections, z } from "@gw/config";
import { applyMigrations, createDb, type Db } from "@gw/db";
import { createSecretBox, type SecretBox } from "@gw/signer";

export interface TestEnv {
  databaseUrl: string;
  redisUrl: string;
  /** A fresh key prefix so parallel test files never share queues, caches or rate-limit buckets. */
  redisPrefix: string;
  /** SECRETS_KEYS of the run: what every dispatcher, panel and CLI of a test is given (testSecretsKeys). */
  secretsKeys: string;
}

/**
 * The key ring the tests seal and open stored secrets with (SECRETS_KEYS): the environment's when set, else one
 * derived from the run's DATABASE_URL, so that every jest worker of a run, and every process a test starts, holds the
 * same ring, as every pod of a deployment does (a dispatcher's sweep may pick up another test file's delivery). It is
 * put in `process.env`, so CLI processes a test starts inherit it.
 */
export function testSecretsKeys(): string {
  const run = process.env.DATABASE_URL ?? randomBytes(16).toString("hex");
  const keys =
    process.env.SECRETS_KEYS || `test:${createHmac("sha256", "gateway test key ring").update(run).digest("base64")}`;
  process.env.SECRETS_KEYS = keys;
  return keys;
}

/** The box over testSecretsKeys(), as the dispatcher and the panel build theirs. */
export function testSecretBox(): SecretBox {
  return createSecretBox(loadConfig(z.object(sections.secrets()), { SECRETS_KEYS: testSecretsKeys() }).SECRETS_KEYS);
}

/** The stack started by scripts/test.sh. */
export function testEnv(): TestEnv {
  const databaseUrl = process.env.DATABASE_URL;
  const redisUrl = process.env.REDIS_URL;
  if (!databaseUrl || !redisUrl) throw new Error("DATABASE_URL e REDIS_URL ausentes: rode os testes com `npm test`.");
  return {
    databaseUrl,
    redisUrl,
    redisPrefix: `t${randomBytes(4).toString("hex")}`,
    secretsKeys: testSecretsKeys(),
  };
}

/**
 * The database scripts/test.sh migrated once for the run (GW_TEMPLATE_DATABASE), that isolatedDatabase copies; null
 * when jest runs without it (each isolated database is then migrated from scratch).
 */
function templateDatabase(): string | null {
  const name = process.env.GW_TEMPLATE_DATABASE;
  return name && /^[a-z0-9_]+$/.test(name) ? name : null;
}

/** An empty database on the test server, or a copy of `template`; `drop()` removes it. */
export async function createTempDatabase(
  options: { template?: string } = {},
): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = new URL(testEnv().databaseUrl);
  const name = `gw_tmp_${randomBytes(5).toString("hex")}`;
  const admin = new URL(base);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`CREATE DATABASE "${name}"${options.template ? ` TEMPLATE "${options.template}"` : ""}`);
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

/**
 * A migrated database of its own, for tests that scan whole tables (the reconciler's sweep): a copy of the run's
 * template database (`CREATE DATABASE … TEMPLATE`, a file copy, instead of applying every migration again);
 * `drop()` removes it.
 */
export async function isolatedDatabase(): Promise<{ url: string; db: Db; drop: () => Promise<void> }> {
  const template = templateDatabase();
  const temp = await createTempDatabase(template ? { template } : {});
  if (!template) await applyMigrations(temp.url);
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
