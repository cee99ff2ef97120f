import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, cpSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { applyMigrations, listMigrations, MIGRATIONS_DIR } from "@gw/db";
import { createTempDatabase } from "@gw/testkit";

describe("committed SQL migrations", () => {
  let database: Awaited<ReturnType<typeof createTempDatabase>>;
  beforeAll(async () => {
    database = await createTempDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it("apply to an empty database, each exactly once, even when pods migrate concurrently", async () => {
    const results = await Promise.all([
      applyMigrations(database.url),
      applyMigrations(database.url),
      applyMigrations(database.url),
    ]);
    const names = listMigrations().map((m) => m.name);
    expect(names.length).toBeGreaterThan(0);
    expect(results.flatMap((r) => r.applied).sort()).toEqual(names.sort());

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const history = await client.query(
        "SELECT migration_name, checksum, finished_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name",
      );
      expect(history.rows.map((r) => r.migration_name)).toEqual(names);
      for (const [index, row] of history.rows.entries()) {
        expect(row.checksum).toBe(listMigrations()[index]?.checksum);
        expect(row.finished_at).toBeInstanceOf(Date);
        expect(row.applied_steps_count).toBe(1);
      }
      const tables = await client.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
      );
      expect(tables.rows.map((r) => r.table_name)).toEqual(
        expect.arrayContaining(["accounts", "messages", "deliveries", "idempotency_keys"]),
      );
    } finally {
      await client.end();
    }
    expect((await applyMigrations(database.url)).applied).toEqual([]);
  });

  it("refuse to run when an applied migration was edited afterwards", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-migrations-"));
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    const first = listMigrations(dir)[0];
    if (!first) throw new Error("no migrations");
    appendFileSync(join(dir, first.name, "migration.sql"), "\n-- edited\n");
    await expect(applyMigrations(database.url, dir)).rejects.toThrow(/alterada depois de aplicada/);
  });
});
