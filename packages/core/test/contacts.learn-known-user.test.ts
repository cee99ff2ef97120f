// Issue 34: Meta names a message's recipient (phone and BSUID) on each of its statuses. Learning a user the gateway
// knows already must be a read: before, every status inserted its identifiers again (conflicting), locked each one
// FOR UPDATE and upserted the contact, three times per message. A status keys no row by the answer, so it takes no
// lock; an inbound message does (its sender's rows are keyed by it), and reads them under a share lock.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDb, type Db } from "@gw/db";
import { createFixture, testEnv } from "@gw/testkit";
import { learnContacts } from "../src/contacts/index.ts";

let db: Db;
let accountId: string;

beforeAll(async () => {
  db = createDb({ url: testEnv().databaseUrl, poolSize: 2 });
  accountId = (await createFixture(db, "http://127.0.0.1:9/x")).accountId;
});

afterAll(async () => {
  await db.$disconnect();
});

const user = (phone: string, bsuid: string) => ({ phone, bsuid, parentBsuid: null, username: null, name: null });

/** The row versions and locks of the user's identifiers and contact: unchanged by a read, moved by any write or lock. */
async function footprint(key: string) {
  const { rows } = await db.sql.query<{ row: string }>(
    `SELECT 'i:' || identifier || ':' || xmin || ':' || xmax AS row FROM contact_identifiers
       WHERE account_id = $1::uuid AND contact_key = $2
     UNION ALL
     SELECT 'c:' || key || ':' || xmin || ':' || xmax FROM contacts WHERE account_id = $1::uuid AND key = $2
     ORDER BY 1`,
    [accountId, key],
  );
  return rows.map((r) => r.row);
}

describe("learning a user known already", () => {
  it("from a status reads its identifiers and contact, and writes or locks nothing", async () => {
    const phone = `5511977${String(Date.now()).slice(-6)}`;
    const [key] = await learnContacts(db.sql, [{ accountId, user: user(phone, `BR.ja${phone}`), keyed: false }]);
    expect(key).toBe(phone);
    const before = await footprint(phone);
    expect(before).toHaveLength(3);

    const again = await learnContacts(db.sql, [{ accountId, user: user(phone, `BR.ja${phone}`), keyed: false }]);

    expect(again).toEqual([phone]);
    expect(await footprint(phone)).toEqual(before);
  });

  it("from an inbound message gives the same key, having read it under a share lock", async () => {
    const phone = `5511966${String(Date.now()).slice(-6)}`;
    await learnContacts(db.sql, [{ accountId, user: user(phone, `BR.lk${phone}`), keyed: false }]);
    const before = await footprint(phone);

    expect(await learnContacts(db.sql, [{ accountId, user: user(phone, `BR.lk${phone}`) }])).toEqual([phone]);

    // The identifiers were locked (FOR SHARE leaves the locker in xmax), nothing was rewritten (same xmin).
    const after = await footprint(phone);
    const xmin = (rows: string[]) => rows.map((r) => r.split(":").slice(0, -1).join(":"));
    expect(xmin(after)).toEqual(xmin(before));
    expect(after.filter((r) => r.startsWith("i:")).every((r) => !r.endsWith(":0"))).toBe(true);
  });
});
