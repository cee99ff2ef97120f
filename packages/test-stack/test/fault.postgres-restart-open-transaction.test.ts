// Found by the combined fault run: the API process exited (code 1) during a PostgreSQL restart with
// "Unhandled 'error' event ... Connection terminated unexpectedly". A connection checked out of the pool by
// `inTransaction` has no 'error' listener (pg-pool removes its idle listener at checkout), and pg's Client emits
// 'error' when its socket ends while connected, even after the active query was already failed with 57P01. Without
// a listener that event is an uncaught exception: the whole process dies, not just the transaction.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createSqlPool, inTransaction, isDatabaseUnavailable, type SqlPool } from "@gw/db";
import { startThrowawayPostgres, type ThrowawayPostgres } from "@gw/testkit";

let postgres: ThrowawayPostgres;
let pool: SqlPool;

beforeAll(async () => {
  postgres = await startThrowawayPostgres();
  pool = createSqlPool({ url: postgres.url, max: 2, connectionTimeoutMs: 5_000 });
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await postgres?.stop();
});

describe("a PostgreSQL restart while a transaction is open", () => {
  it("fails that transaction as 'database unavailable' and leaves the process and the pool working", async () => {
    let started!: () => void;
    const inside = new Promise<void>((resolve) => (started = resolve));
    const outcome = inTransaction(pool, async (client) => {
      await client.query("SELECT 1");
      started();
      await client.query("SELECT pg_sleep(30)");
    }).then(
      () => null,
      (reason: unknown) => reason,
    );
    await inside;
    // Without a listener on the checked-out connection, jest fails here with "Unhandled error. (Error: Connection
    // terminated unexpectedly": the Client's 'error' event is thrown before the transaction settles (its ROLLBACK
    // can only fail once the connection ended).
    await postgres.restart();
    expect(isDatabaseUnavailable(await outcome)).toBe(true);
    expect((await pool.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
  }, 60_000);
});
