import pg from "pg";

/**
 * Hand-written SQL for the hot paths (send commit, provider status batches, delivery claims and results).
 * It runs on the same `pg` pool as the Prisma client, so one pool size governs each process; Prisma keeps the
 * schema, the migrations' drift test and the admin paths. See docs/decisions.md ("Hot-path SQL").
 */
export type SqlPool = pg.Pool;
export type SqlClient = pg.PoolClient;
/** Either the pool (one statement, autocommit) or a client inside `inTransaction`. */
export type Sql = Pick<pg.Pool, "query">;

export interface SqlPoolOptions {
  url: string;
  /** Connections per process; API and dispatcher pods size this separately. */
  max: number;
  /**
   * How long a query may wait for a free connection. Long on purpose: a burst must queue for a connection,
   * not fail (a send that Meta accepted cannot be answered with a pool time-out).
   */
  connectionTimeoutMs: number;
  /**
   * false: commits return before their WAL is flushed (PostgreSQL's synchronous_commit=off). Only for a process
   * whose writes may be lost in a database crash without losing anything else (see the dispatcher's setting).
   */
  synchronousCommit?: boolean;
  /**
   * Where `listen` connects (a session straight to PostgreSQL when `url` goes through a transaction pooler, where
   * LISTEN does not work). Default: `url`.
   */
  listenUrl?: string;
}

/** The LISTEN connection string of each pool that has its own (`SqlPoolOptions.listenUrl`). */
const listenUrls = new WeakMap<SqlPool, string>();

export function createSqlPool(options: SqlPoolOptions): SqlPool {
  const pool = new pg.Pool({
    connectionString: options.url,
    ...(options.synchronousCommit === false ? { options: "-c synchronous_commit=off" } : {}),
    max: options.max,
    connectionTimeoutMillis: options.connectionTimeoutMs,
    // Idle connections are kept a while: reconnecting costs more than an idle socket.
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its server (restart, failover) must not crash the process; the next query reconnects.
  pool.on("error", () => undefined);
  if (options.listenUrl) listenUrls.set(pool, options.listenUrl);
  return pool;
}

/**
 * Run `work` in one transaction on one connection. A thrown error rolls back; a connection that broke is
 * discarded instead of being returned to the pool.
 */
export async function inTransaction<T>(pool: SqlPool, work: (client: SqlClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // pg-pool drops its idle listener at checkout, and pg's Client emits 'error' when its connection ends (a
  // PostgreSQL restart) even after failing the query in flight: unheard, that event kills the process.
  const onError = (error: Error) => {
    broken ??= error;
  };
  client.on("error", onError);
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch((rollbackError: unknown) => {
      broken ??= rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    client.removeListener("error", onError);
    client.release(broken);
  }
}

/** SQLSTATE classes and codes that mean "the database is not reachable right now", not "the query is wrong". */
const UNAVAILABLE_CODES = new Set([
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
  "08007",
]);
const UNAVAILABLE_ERRNOS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);
/** Prisma's codes for "the database cannot be reached / did not answer in time" (not for a query that failed). */
const PRISMA_UNAVAILABLE_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2037"]);

/**
 * Whether an error from `pg` (or the Prisma adapter wrapping it) means the database is unavailable (restart,
 * shutdown, failover, pool exhausted or connection lost), so the caller answers 503 or retries later.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current !== "object") return false;
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (
      typeof code === "string" &&
      (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_ERRNOS.has(code) || PRISMA_UNAVAILABLE_CODES.has(code))
    ) {
      return true;
    }
    if (
      typeof message === "string" &&
      /timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error|the database system is (shutting down|starting up)/i.test(
        message,
      )
    ) {
      return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

export interface Listener {
  close(): Promise<void>;
}

/** What a LISTEN connection calls itself in pg_stat_activity (`application_name`), unless its URL names it. */
export const LISTEN_APPLICATION_NAME = "gateway-listen";

/**
 * LISTEN on every channel of `channels` over one dedicated connection (not one of the pool's; the pool's `listenUrl`
 * when it has one), reconnecting after a loss: a process holds one session for all it follows, so PostgreSQL's
 * connection budget counts one per pod (docs/deploy.md, "Connections"). While the connection was down notifications
 * may have been missed: `onGap` is called after each (re)connect so the caller can drop what it cached.
 */
export function listen(
  pool: SqlPool,
  channels: Readonly<Record<string, (payload: string) => void>>,
  onGap: () => void,
): Listener {
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const listenUrl = listenUrls.get(pool);
    const next = new pg.Client({
      application_name: LISTEN_APPLICATION_NAME,
      ...pool.options,
      ...(listenUrl ? { connectionString: listenUrl } : {}),
    });
    next.on("notification", (message) => {
      const handler = Object.hasOwn(channels, message.channel) ? channels[message.channel] : undefined;
      if (handler && message.payload !== undefined) handler(message.payload);
    });
    next.on("error", () => reconnect(next));
    next.on("end", () => reconnect(next));
    try {
      await next.connect();
      for (const channel of Object.keys(channels)) await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      if (closed) {
        await next.end();
        return;
      }
      client = next;
      onGap();
    } catch {
      reconnect(next);
    }
  };
  const reconnect = (failed: pg.Client): void => {
    if (closed || retry) return;
    if (client === failed) client = null;
    failed.removeAllListeners("end");
    void failed.end().catch(() => undefined);
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, 1_000);
    retry.unref();
  };
  void connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const current = client;
      client = null;
      if (current) {
        current.removeAllListeners("end");
        await current.end().catch(() => undefined);
      }
    },
  };
}
