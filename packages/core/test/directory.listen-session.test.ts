// A pod's directory follows two NOTIFY channels (API-key revocations, number changes) over ONE PostgreSQL session.
// PostgreSQL's connection budget counts one direct LISTEN session per API pod and per campaign worker
// (docs/deploy.md, "Connections"), and the topology run (pnpm test:deploy) holds the count to that: a second session
// per pod is what made it see 4 where it expected 2.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  addBusinessNumber,
  announceNumberChange,
  createAccount,
  createAccountDirectory,
  createApiKey,
  revokeApiKey,
  type AccountDirectory,
} from "@gw/core/accounts";
import { createDb, type Db } from "@gw/db";
import { eventually, isolatedDatabase, testActor } from "@gw/testkit";

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let db: Db;
let directory: AccountDirectory;
let stopFollowing: () => Promise<void>;

beforeAll(async () => {
  database = await isolatedDatabase();
  // The database is this file's own: every LISTEN session in it is the directory's.
  db = createDb({ url: database.url, poolSize: 2, listenUrl: database.url });
  // TTLs far beyond the test: only a notification (or the reconnect that follows a missed one) drops an entry.
  directory = createAccountDirectory(db, {
    apiKeyTtlMs: 600_000,
    unknownKeyTtlMs: 0,
    numberTtlMs: 600_000,
    maxEntries: 100,
  });
  stopFollowing = directory.followRevocations();
});

afterAll(async () => {
  await stopFollowing();
  await db.$disconnect();
  await database.drop();
});

describe("the account directory's LISTEN", () => {
  it("follows key revocations and number changes over a single session named gateway-listen", async () => {
    const account = await createAccount({ db }, { actor: testActor, name: `listen-${randomBytes(3).toString("hex")}` });
    const phoneNumberId = `1${Date.now()}`.slice(0, 15);
    await addBusinessNumber(
      { db },
      { actor: testActor, accountId: account.id, phoneNumberId, wabaId: "200000000000001", displayNumber: "+55 11" },
    );
    const key = await createApiKey({ db }, { accountId: account.id, actor: testActor });

    // Both channels are live: a revocation and a number change reach the cached entries.
    expect(await directory.authenticate(key.key)).not.toBeNull();
    await revokeApiKey({ db }, { keyId: key.id, actor: testActor });
    await eventually(async () => (await directory.authenticate(key.key)) === null, { what: "the revocation" });
    const before = await directory.resolveNumber(account.id, phoneNumberId);
    await db.businessNumber.update({ where: { phoneNumberId }, data: { messagingRatePerSecond: 321 } });
    await announceNumberChange(db.sql, account.id);
    await eventually(
      async () => (await directory.resolveNumber(account.id, phoneNumberId))?.messagingRatePerSecond === 321,
      { what: "the number change" },
    );
    expect(before?.messagingRatePerSecond).not.toBe(321);

    const { rows } = await db.sql.query<{ application_name: string; query: string }>(
      `SELECT application_name, query FROM pg_stat_activity
        WHERE datname = current_database() AND query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
    );
    expect(rows).toHaveLength(1);
    // The name operators find it by in pg_stat_activity (docs/deploy.md, "Connections").
    expect(rows[0]?.application_name).toBe("gateway-listen");
  });
});
