import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import pg from "pg";
import { createDb, listen, type Db } from "@gw/db";
import { createTempDatabase, eventually } from "@gw/testkit";

// Behind PgBouncer in transaction mode DATABASE_URL cannot hold a LISTEN: the pool's `listenUrl` (the apps'
// DATABASE_LISTEN_URL) gives LISTEN a session of its own, straight to PostgreSQL.
describe("listen() on a pool with a listenUrl", () => {
  let database: Awaited<ReturnType<typeof createTempDatabase>>;
  let db: Db;
  beforeAll(async () => {
    database = await createTempDatabase();
    // The pool's own address answers nothing: only the listen URL can carry the notification.
    const unreachable = new URL(database.url);
    unreachable.port = "1";
    db = createDb({ url: unreachable.toString(), poolSize: 1, connectionTimeoutMs: 500, listenUrl: database.url });
  });
  afterAll(async () => {
    await db.$disconnect();
    await database.drop();
  });

  it("connects to the listen URL and receives NOTIFY there", async () => {
    const received: string[] = [];
    let gaps = 0;
    const listener = listen(db.sql, { gw_listen_url_test: (payload) => received.push(payload) }, () => gaps++);
    try {
      await eventually(() => gaps === 1, { what: "LISTEN connected" });
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      await client.query("SELECT pg_notify('gw_listen_url_test', 'revogada')");
      await client.end();
      await eventually(() => received.length > 0, { what: "the notification" });
      expect(received).toEqual(["revogada"]);
    } finally {
      await listener.close();
    }
  });
});
