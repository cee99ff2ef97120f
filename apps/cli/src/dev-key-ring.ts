// `pnpm gateway` in a second shell beside `npm start`. scripts/start.sh keeps the key ring that seals the signing
// secrets in `.data/secrets-keys` (when SECRETS_KEYS is not set) and gives it to the processes it runs; in development
// the CLI reads the same file, so `integration set` works without exporting anything. Development means all of:
// NODE_ENV is not `production` (the image sets it), the file is in the `.data/` of the directory the CLI runs in
// (`pnpm gateway` runs at the checkout's root), and the database says it is npm start's: start.sh marks its database
// (markDevelopmentDatabase) and no production database has the mark. The database's host says nothing: a tunnel
// (`kubectl port-forward`, `ssh -L`) puts production on 127.0.0.1, and `?host=` in DATABASE_URL overrides the host.
// With the file but without the mark the CLI refuses (run.ts). Anywhere else SECRETS_KEYS is required, as before.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Sql } from "@gw/db";

/** Where scripts/start.sh writes its key ring, relative to the checkout. */
export const DEVELOPMENT_KEY_RING_PATH = join(".data", "secrets-keys");

export interface DevelopmentKeyRing {
  /** The file's content: a SECRETS_KEYS value. */
  keys: string;
  file: string;
}

/** npm start's key ring, when this run may be development (above; the database is asked later); null otherwise. */
export function findDevelopmentKeyRing(input: { env: NodeJS.ProcessEnv; cwd: string }): DevelopmentKeyRing | null {
  if (input.env.NODE_ENV === "production") return null;
  const file = join(input.cwd, DEVELOPMENT_KEY_RING_PATH);
  let keys: string;
  try {
    keys = readFileSync(file, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  return keys === "" ? null : { keys, file };
}

// The mark is a database-level setting (ALTER DATABASE … SET), not a row: a plain pg_dump does not carry it, so a
// development dump restored into production does not bring it along, and no migration or table is needed. It is
// read from the catalog, not with current_setting(): a session can set any `gateway.*` value itself (`options` in
// DATABASE_URL, PGOPTIONS), the catalog holds only what ALTER DATABASE stored.
const MARK = "gateway.development=on";

/** Marks the database `sql` is connected to as npm start's (scripts/start.sh). Needs its owner or a superuser. */
export async function markDevelopmentDatabase(sql: Sql): Promise<void> {
  await sql.query(
    "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET gateway.development = on', pg_catalog.current_database()); END $$",
  );
}

/** Whether the database `sql` is connected to carries npm start's mark (for every role, not one role's setting). */
export async function isDevelopmentDatabase(sql: Sql): Promise<boolean> {
  const { rows } = await sql.query<{ marked: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM pg_catalog.pg_db_role_setting s JOIN pg_catalog.pg_database d ON d.oid = s.setdatabase
       WHERE d.datname = pg_catalog.current_database() AND s.setrole = 0 AND $1 = ANY (s.setconfig)
     ) AS marked`,
    [MARK],
  );
  return rows[0]?.marked === true;
}
