// Contacts: a WhatsApp user is a phone, a BSUID, or both, and every table keys them by one key that never changes
// (contacts/contacts.ts and the SQL functions of migration 20261128000000_contacts). Learnt from webhooks, merged when
// two keys turn out to be one person, re-keyed by changes of number or of BSUID, idempotently.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDb, type Db } from "@gw/db";
import type { MetaIdentityChange, MetaUserRef } from "@gw/meta";
import { testEnv } from "@gw/testkit";
import { learnUser } from "./support/contacts.ts";
import { applyIdentityChanges, contactKeyOf } from "../src/contacts/contacts.ts";

let db: Db;
let accountId: string;
const PHONE_NUMBER_ID = "900000000000001";

beforeAll(async () => {
  db = createDb({ url: testEnv().databaseUrl, poolSize: 2 });
  accountId = (await db.account.create({ data: { name: "Contatos" } })).id;
  await db.businessNumber.create({
    data: { accountId, phoneNumberId: PHONE_NUMBER_ID, wabaId: "900000000000002", displayNumber: "+55 11 4000-0009" },
  });
});

afterAll(async () => {
  await db.$disconnect();
});

let seq = 0;
/** A fresh phone and BSUID pair, unique to each test. */
function ids() {
  seq += 1;
  const digits = String(Date.now()).slice(-7) + String(seq).padStart(2, "0");
  return { phone: `55119${digits}`, bsuid: `BR.77${digits}000`, bsuid2: `BR.88${digits}000` };
}

const learn = (fields: Partial<MetaUserRef>) => learnUser(db, accountId, fields);
const keyOf = (identifier: string) => contactKeyOf(db.sql, { accountId, identifier });

async function openWindow(contact: string, hours = 24): Promise<void> {
  await db.sql.query(
    `INSERT INTO contact_windows (phone_number_id, contact, last_inbound_at, expires_at)
     VALUES ($1, $2, now(), now() + make_interval(hours => $3))
     ON CONFLICT (phone_number_id, contact) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
    [PHONE_NUMBER_ID, contact, hours],
  );
}

const windowOf = async (contact: string) =>
  (
    await db.sql.query<{ expires_at: Date }>(
      `SELECT expires_at FROM contact_windows WHERE phone_number_id = $1 AND contact = $2`,
      [PHONE_NUMBER_ID, contact],
    )
  ).rows[0]?.expires_at ?? null;

describe("a contact's key", () => {
  it("is the identifier itself for someone never seen, and the phone for someone first seen with both", async () => {
    const { phone, bsuid } = ids();
    expect(await keyOf(phone)).toBe(phone);
    expect(await learn({ phone, bsuid, username: "ana.padaria", name: "Ana" })).toBe(phone);
    expect(await keyOf(bsuid)).toBe(phone);
    expect(await db.contact.findUniqueOrThrow({ where: { accountId_key: { accountId, key: phone } } })).toMatchObject({
      phone,
      bsuid,
      username: "ana.padaria",
      name: "Ana",
    });
  });

  it("is the BSUID for a user whose phone Meta withholds, and stays so when the phone is learnt later", async () => {
    const { phone, bsuid } = ids();
    expect(await learn({ bsuid, username: "sem.telefone" })).toBe(bsuid);
    expect(await learn({ phone, bsuid })).toBe(bsuid);
    expect(await keyOf(phone)).toBe(bsuid);
  });

  it("merges two keys that turn out to be one person: windows (the later wins) and opt-outs follow the phone's key", async () => {
    const { phone, bsuid } = ids();
    await learn({ phone });
    await learn({ bsuid, username: "dois.nomes" });
    await openWindow(phone, 2);
    await openWindow(bsuid, 20);
    await db.sql.query(
      `INSERT INTO contact_suppressions (account_id, contact, reason) VALUES ($1, $2, 'user_preferences')`,
      [accountId, bsuid],
    );

    // A status of a send to the phone names the BSUID behind it.
    expect(await learn({ phone, bsuid })).toBe(phone);
    expect(await keyOf(bsuid)).toBe(phone);
    expect((await windowOf(phone))!.getTime()).toBeGreaterThan(Date.now() + 19 * 3_600_000);
    expect(await windowOf(bsuid)).toBeNull();
    const suppressed = await db.contactSuppression.findMany({ where: { accountId, contact: { in: [phone, bsuid] } } });
    expect(suppressed.map((s) => s.contact)).toEqual([phone]);
    expect(await db.contact.findUnique({ where: { accountId_key: { accountId, key: bsuid } } })).toBeNull();
  });

  it("learning the same user twice (Meta redelivers) changes nothing", async () => {
    const { phone, bsuid } = ids();
    await learn({ phone, bsuid, name: "Duas vezes" });
    const before = await db.contactIdentifier.findMany({
      where: { accountId, contactKey: phone },
      orderBy: { identifier: "asc" },
    });
    await learn({ phone, bsuid, name: "Duas vezes" });
    const after = await db.contactIdentifier.findMany({
      where: { accountId, contactKey: phone },
      orderBy: { identifier: "asc" },
    });
    expect(after).toEqual(before);
  });
});

describe("a change of number or of BSUID", () => {
  const change = (fields: Partial<MetaIdentityChange>): MetaIdentityChange => ({
    phoneNumberId: PHONE_NUMBER_ID,
    source: "user_id_update",
    wamid: null,
    time: null,
    previous: { phone: null, bsuid: null, parentBsuid: null },
    current: { phone: null, bsuid: null, parentBsuid: null },
    name: null,
    ...fields,
  });

  it("keeps the contact's key, window and opt-out; the new ids name it; the old phone names no one (idempotent)", async () => {
    const { phone, bsuid, bsuid2 } = ids();
    const newPhone = `${phone.slice(0, -1)}${(Number(phone.at(-1)) + 1) % 10}`;
    await learn({ phone, bsuid });
    await openWindow(phone);
    await db.sql.query(`INSERT INTO contact_suppressions (account_id, contact, reason) VALUES ($1, $2, 'operator')`, [
      accountId,
      phone,
    ]);
    const numberChanged = change({
      source: "user_changed_number",
      wamid: "wamid.sistema",
      previous: { phone, bsuid: null, parentBsuid: null },
      current: { phone: newPhone, bsuid: bsuid2, parentBsuid: null },
    });
    const idChanged = change({
      previous: { phone: newPhone, bsuid, parentBsuid: null },
      current: { phone: newPhone, bsuid: bsuid2, parentBsuid: null },
    });
    for (let round = 0; round < 2; round++)
      await applyIdentityChanges(db.sql, [
        { accountId, change: numberChanged },
        { accountId, change: idChanged },
      ]);

    expect(await keyOf(newPhone)).toBe(phone);
    expect(await keyOf(bsuid2)).toBe(phone);
    // The old BSUID still names its contact (Meta never gives it to anyone else)...
    expect(await keyOf(bsuid)).toBe(phone);
    // ...the old number is someone else's from now on: no window, no opt-out of the old user applies to it.
    expect(await keyOf(phone)).toBe(`retired:${phone}`);
    expect(await windowOf(phone)).not.toBeNull();
    expect(await db.contact.findUniqueOrThrow({ where: { accountId_key: { accountId, key: phone } } })).toMatchObject({
      phone: newPhone,
      bsuid: bsuid2,
    });
    // The new owner of the old number is a contact of their own.
    const { bsuid: stranger } = ids();
    const strangerKey = await learn({ phone, bsuid: stranger });
    expect(strangerKey).toBe(stranger);
    expect(await keyOf(phone)).toBe(stranger);
    expect(await keyOf(newPhone)).toBe(phone);
  });

  it("about someone never seen, learns them as they are now (never dropped)", async () => {
    const { phone, bsuid, bsuid2 } = ids();
    await applyIdentityChanges(db.sql, [
      {
        accountId,
        change: change({
          previous: { phone: null, bsuid, parentBsuid: null },
          current: { phone: null, bsuid: bsuid2, parentBsuid: null },
        }),
      },
    ]);
    expect(await keyOf(bsuid2)).toBe(bsuid2);
    expect(await keyOf(phone)).toBe(phone);
  });
});
