// `db.$disconnect()` closes every connection of the process's pool, whether Prisma ran a query or only the
// hand-written `sql` statements did: Prisma disposes the pool only once its engine started, so a dispatcher (raw SQL
// only) kept its connections open for their idle timeout after stopping, and jest's workers could not exit.
import { describe, expect, it } from "@jest/globals";
import { createDb } from "@gw/db";
import { testEnv } from "@gw/testkit";

type PoolState = { ending: boolean; totalCount: number };

describe("db.$disconnect", () => {
  it("ends the pool when only `sql` statements ran (Prisma's engine never started)", async () => {
    const db = createDb({ url: testEnv().databaseUrl, poolSize: 3 });
    await Promise.all([db.sql.query("SELECT 1"), db.sql.query("SELECT 2")]);
    await db.$disconnect();
    const pool = db.sql as unknown as PoolState;
    expect({ ending: pool.ending, totalCount: pool.totalCount }).toEqual({ ending: true, totalCount: 0 });
  });

  it("ends the pool once when Prisma ran a query too (its own disposal ended it)", async () => {
    const db = createDb({ url: testEnv().databaseUrl, poolSize: 3 });
    await db.$queryRawUnsafe("SELECT 1");
    await db.sql.query("SELECT 1");
    await expect(db.$disconnect()).resolves.toBeUndefined();
    const pool = db.sql as unknown as PoolState;
    expect({ ending: pool.ending, totalCount: pool.totalCount }).toEqual({ ending: true, totalCount: 0 });
  });
});
