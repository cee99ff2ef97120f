import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient, type Prisma } from "./generated/client.ts";

export { Prisma, PrismaClient } from "./generated/client.ts";
export type * from "./generated/client.ts";
export { applyMigrations, listMigrations, MIGRATIONS_DIR } from "./migrate.ts";
export type { MigrationFile, MigrationResult } from "./migrate.ts";

export type Db = PrismaClient;
/** The client handed to `$transaction(async (tx) => ...)` callbacks. */
export type DbTx = Prisma.TransactionClient;

export interface DbOptions {
  url: string;
  /** Pool size per process; API and dispatcher pods size this separately. */
  poolSize?: number;
}

export function createDb(options: DbOptions): PrismaClient {
  const adapter = new PrismaPg({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5_000,
  });
  return new PrismaClient({ adapter });
}

/** `SELECT 1` with a deadline, for readiness probes. */
export async function pingDb(db: PrismaClient, timeoutMs = 2_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const ping = db.$queryRawUnsafe("SELECT 1").then(() => true);
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
