// Issue 35, item 1: the keys made before scopes existed keep every scope. A database migrated up to the release before
// this one, with a key in it, is migrated to this release: the key's row holds no list (every scope, also the ones a
// later release adds), the API's directory reads it so, and the new CHECK refuses unknown or empty lists.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { API_KEY_SCOPES, createAccountDirectory, hasScope, hashApiKey } from "@gw/core/accounts";
import { applyMigrations, createDb, listMigrations, MIGRATIONS_DIR, type Db } from "@gw/db";
import { createTempDatabase } from "@gw/testkit";

const SCOPES_MIGRATION = "20261207100000_api_key_scopes";

describe("API key scopes migration", () => {
  let database: Awaited<ReturnType<typeof createTempDatabase>>;
  let db: Db;

  beforeAll(async () => {
    database = await createTempDatabase();
    const before = mkdtempSync(join(tmpdir(), "gw-migrations-before-scopes-"));
    for (const migration of listMigrations().filter((m) => m.name < SCOPES_MIGRATION))
      cpSync(join(MIGRATIONS_DIR, migration.name), join(before, migration.name), { recursive: true });
    await applyMigrations(database.url, before);
    db = createDb({ url: database.url, poolSize: 1 });
  });
  afterAll(async () => {
    await db.$disconnect();
    await database.drop();
  });

  it("leaves a key made before scopes with every scope, and refuses unknown or empty lists", async () => {
    const key = `pt_live_${"A".repeat(43)}`;
    const {
      rows: [account],
    } = await db.sql.query<{ id: string }>(`INSERT INTO accounts (name) VALUES ('Conta antiga') RETURNING id`);
    const {
      rows: [row],
    } = await db.sql.query<{ id: string }>(
      `INSERT INTO api_keys (account_id, key_hash, prefix, name) VALUES ($1, $2, $3, 'ERP antigo') RETURNING id`,
      [account!.id, hashApiKey(key), key.slice(0, 14)],
    );

    const { applied } = await applyMigrations(database.url);
    expect(applied).toContain(SCOPES_MIGRATION);

    const { rows } = await db.sql.query<{ scopes: string[] | null }>(`SELECT scopes FROM api_keys WHERE id = $1`, [
      row!.id,
    ]);
    expect(rows).toEqual([{ scopes: null }]);
    const authenticated = await createAccountDirectory(db).authenticate(key);
    expect(authenticated).toEqual({ keyId: row!.id, accountId: account!.id, scopes: null });
    for (const scope of API_KEY_SCOPES)
      expect({ scope, held: hasScope(authenticated!.scopes, scope) }).toEqual({ scope, held: true });

    for (const refused of [`{}`, `{contacts:delete}`, `{messages:send,admin}`])
      await expect(db.sql.query(`UPDATE api_keys SET scopes = $1 WHERE id = $2`, [refused, row!.id])).rejects.toThrow(
        /api_keys_scopes_known/,
      );
    await db.sql.query(`UPDATE api_keys SET scopes = '{messages:send,orders:write}' WHERE id = $1`, [row!.id]);
  });
});
