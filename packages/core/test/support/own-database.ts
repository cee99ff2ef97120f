// A database of the test file's own (not a test file itself), for suites whose statements read or change whole tables
// or global rows: created before the tests of the enclosing file or describe block, dropped after them.
import { afterAll, beforeAll } from "@jest/globals";
import type { Db } from "@gw/db";
import type { isolatedDatabase } from "@gw/testkit";

type OwnDatabase = Awaited<ReturnType<typeof isolatedDatabase>>;

/** `create` is the file's `() => isolatedDatabase()`; `db` reads the database once the tests run. */
export function databaseOfItsOwn(create: () => Promise<OwnDatabase>): { readonly db: Db } {
  let database: OwnDatabase | undefined;
  beforeAll(async () => {
    database = await create();
  });
  afterAll(async () => {
    await database?.drop();
  });
  return {
    get db(): Db {
      if (!database) throw new Error("the database is created before the tests run");
      return database.db;
    },
  };
}
