import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), "../../../prisma/migrations");

// Any constant works; it only has to be the same in every process that migrates this database.
const ADVISORY_LOCK_KEY = 72_707_369;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationResult {
  applied: string[];
  alreadyApplied: string[];
}

export function listMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

// Same DDL as Prisma's migrate engine, so `prisma migrate deploy` on a connected machine sees one history.
const CREATE_HISTORY_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

interface HistoryRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/**
 * Apply pending migrations, each in its own transaction, under a Postgres advisory lock so that several
 * pods starting together apply each migration exactly once. Refuses to go on when an applied migration
 * was edited afterwards or an earlier one failed half-way (as Prisma's P3009 does).
 */
export async function applyMigrations(databaseUrl: string, dir = MIGRATIONS_DIR): Promise<MigrationResult> {
  const files = listMigrations(dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const result: MigrationResult = { applied: [], alreadyApplied: [] };
  try {
    await client.query("SELECT pg_advisory_lock($1)", [ADVISORY_LOCK_KEY]);
    await client.query(CREATE_HISTORY_TABLE);
    const { rows } = await client.query<HistoryRow>(
      `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const history = new Map(rows.map((row) => [row.migration_name, row]));
    for (const file of files) {
      const done = history.get(file.name);
      if (done?.finished_at) {
        if (done.checksum !== file.checksum) {
          throw new Error(`A migração ${file.name} foi alterada depois de aplicada (checksum diferente).`);
        }
        result.alreadyApplied.push(file.name);
        continue;
      }
      if (done)
        throw new Error(`A migração ${file.name} falhou em uma execução anterior; corrija o banco antes de continuar.`);
      await client.query("BEGIN");
      try {
        await client.query(file.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, started_at, applied_steps_count)
           VALUES ($1, $2, now(), $3, NULL, now(), 1)`,
          [randomUUID(), file.checksum, file.name],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`Falha ao aplicar a migração ${file.name}: ${(error as Error).message}`, { cause: error });
      }
      result.applied.push(file.name);
    }
    return result;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [ADVISORY_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}
