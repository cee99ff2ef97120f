import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient, type Prisma } from "./generated/client.ts";
import { createSqlPool, type SqlPool } from "./sql.ts";

export { Prisma, PrismaClient } from "./generated/client.ts";
export type * from "./generated/client.ts";
export { applyMigrations, listMigrations, MIGRATIONS_DIR } from "./migrate.ts";
export type { MigrationFile, MigrationResult } from "./migrate.ts";
export { createSqlPool, inTransaction, isDatabaseUnavailable, listen, LISTEN_APPLICATION_NAME } from "./sql.ts";
export type { Listener, Sql, SqlClient, SqlPool } from "./sql.ts";

/**
 * The database of a process: the Prisma client (schema, admin paths) and, as `sql`, the `pg` pool it runs on,
 * for the hand-written statements of the hot paths. One pool, so DATABASE_POOL_SIZE bounds both.
 */
export type Db = PrismaClient & { readonly sql: SqlPool };
/** The client handed to `$transaction(async (tx) => ...)` callbacks. */
export type DbTx = Prisma.TransactionClient;

export interface DbOptions {
  url: string;
  /** Pool size per process; API and dispatcher pods size this separately. */
  poolSize?: number;
  /**
   * How long a query waits for a free connection before failing. Generous: under a burst, requests queue for
   * a connection instead of failing (a send the provider accepted must still be recorded).
   */
  connectionTimeoutMs?: number;
  /** See SqlPoolOptions.synchronousCommit; true (PostgreSQL's default) unless said otherwise. */
  synchronousCommit?: boolean;
  /** See SqlPoolOptions.listenUrl: LISTEN's own connection when `url` goes through a transaction pooler. */
  listenUrl?: string;
}

export function createDb(options: DbOptions): Db {
  const pool = createSqlPool({
    url: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMs: options.connectionTimeoutMs ?? 30_000,
    synchronousCommit: options.synchronousCommit ?? true,
    ...(options.listenUrl ? { listenUrl: options.listenUrl } : {}),
  });
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  // Prisma disposes the pool only if its engine started: a process that ran nothing but `sql` statements (a
  // dispatcher, an API that served no Prisma path) kept its connections open until their idle timeout (30 s)
  // after $disconnect. End it here when Prisma did not.
  const disconnect = prisma.$disconnect.bind(prisma);
  const $disconnect = async (): Promise<void> => {
    await disconnect();
    if (!pool.ending) await pool.end();
  };
  return Object.assign(prisma, { sql: pool, $disconnect });
}

/** `SELECT 1` with a deadline, for readiness probes. */
export async function pingDb(db: Db, timeoutMs = 2_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const ping = db.sql.query("SELECT 1").then(() => true);
    const deadline = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    return await Promise.race([ping, deadline]);
  } catch {
    return false;
  } finally {
    if (timer) clearTimeout(timer);
  }
}
