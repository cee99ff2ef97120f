// Issue 35, item 10: an opt-out is never lost when two keys of one person merge. The merge copied the absorbed key's
// suppression with ON CONFLICT DO NOTHING: a survivor holding an older `user_preferences` stop kept it, the absorbed
// key's operator block (or its newer stop) was dropped, and a later RESUME then deleted the survivor's row, taking
// the person off the list. The merge now keeps the strongest entry of both (an operator's block, which no RESUME
// removes) and, between equals, the newest (a RESUME older than it leaves the person on the list). Run on the real
// SQL function (gateway_merge_contacts, as migrated) through core's services and the provider webhook's ingestion.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Db } from "@gw/db";
import type { MetaUserRef } from "@gw/meta";
import { testEnv } from "@gw/testkit";
import { contactKeyOf } from "../src/contacts/index.ts";
import { ingestProviderWebhook, type IngestDeps } from "../src/ingest/index.ts";
import { learnUser } from "./support/contacts.ts";
import { openAccountIngest } from "./support/ingest-bed.ts";
import { applyUserPreferences, isSuppressed, suppressContact } from "../src/suppressions/index.ts";

let db: Db;
let deps: IngestDeps;
let accountId: string;
const PHONE_NUMBER_ID = `6${String(randomBytes(4).readUInt32BE(0)).padStart(14, "0")}`;
const WABA_ID = `5${String(randomBytes(4).readUInt32BE(0)).padStart(14, "0")}`;

beforeAll(async () => {
  ({ db, deps, accountId } = await openAccountIngest(testEnv(), "Bloqueios na fusão", {
    phoneNumberId: PHONE_NUMBER_ID,
    wabaId: WABA_ID,
    displayNumber: "+55 11 4000-0035",
  }));
});

afterAll(async () => {
  await db.$disconnect();
});

/** A Brazilian mobile and a BSUID no other test uses. */
function person() {
  const digits = String(randomBytes(4).readUInt32BE(0) % 10_000_000).padStart(7, "0");
  return { phone: `551197${digits}`, bsuid: `BR.35${digits}0001` };
}

const learn = (fields: Partial<MetaUserRef>) => learnUser(db, accountId, fields);
const keyOf = (identifier: string) => contactKeyOf(db.sql, { accountId, identifier });
const suppressed = (contact: string) => isSuppressed({ db }, { accountId, contact });
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

/** Meta's user_preferences stop or resume for a user with both identifiers, at `at` (whole seconds). */
function preference(who: { phone: string; bsuid: string }, value: "stop" | "resume", at: Date): string {
  return JSON.stringify({
    object: "whatsapp_business_account",
    entry: [
      {
        id: WABA_ID,
        changes: [
          {
            field: "user_preferences",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "551140000035", phone_number_id: PHONE_NUMBER_ID },
              contacts: [{ wa_id: who.phone, user_id: who.bsuid, profile: { name: "Luana" } }],
              user_preferences: [
                {
                  wa_id: who.phone,
                  user_id: who.bsuid,
                  detail: value === "stop" ? "User requested to stop marketing messages" : "User requested to resume",
                  category: "marketing_messages",
                  value,
                  timestamp: Math.floor(at.getTime() / 1000),
                },
              ],
            },
          },
        ],
      },
    ],
  });
}

/** The person's one entry on the list: its reason and time (Meta's, in whole seconds). */
async function entryOf(key: string): Promise<{ reason: string; at: number }[]> {
  const { rows } = await db.sql.query<{ reason: string; created_at: Date }>(
    `SELECT reason, created_at FROM contact_suppressions WHERE account_id = $1 AND contact = $2`,
    [accountId, key],
  );
  return rows.map((r) => ({ reason: r.reason, at: Math.floor(r.created_at.getTime() / 1000) }));
}

/**
 * Two keys of one person: the phone's (the survivor) with a `user_preferences` stop from an hour ago, and the BSUID's
 * (absorbed) with whatever `absorbed` puts there. Then a webhook shows both identifiers: the merge.
 */
async function twoKeysMerged(absorbed: (bsuid: string) => Promise<unknown>) {
  const who = person();
  expect(await learn({ phone: who.phone })).toBe(who.phone);
  await applyUserPreferences(db.sql, [{ accountId, contactKey: who.phone, value: "stop", at: minutesAgo(60) }]);
  expect(await learn({ bsuid: who.bsuid, username: "luana.doces" })).toBe(who.bsuid);
  await absorbed(who.bsuid);
  expect(await learn({ phone: who.phone, bsuid: who.bsuid })).toBe(who.phone);
  expect(await keyOf(who.bsuid)).toBe(who.phone);
  return who;
}

describe("merging two keys of one person keeps the strongest and newest opt-out", () => {
  it("an operator's block on the absorbed key outranks the survivor's older stop: a later resume leaves it", async () => {
    const who = await twoKeysMerged((bsuid) =>
      suppressContact({ db }, { accountId, contact: bsuid, reason: "operator" }),
    );
    expect((await entryOf(who.phone)).map((e) => e.reason)).toEqual(["operator"]);

    // The person resumes marketing messages (newer than every entry): applied, and the operator's block still holds.
    expect(await ingestProviderWebhook(deps, preference(who, "resume", minutesAgo(1)))).toMatchObject({
      quarantined: 0,
      duplicate: false,
    });
    expect(await suppressed(who.phone)).toBe(true);
    expect(await suppressed(who.bsuid)).toBe(true);

    // The other way round: the survivor's own operator block is kept over the absorbed key's newer stop.
    const other = person();
    expect(await learn({ phone: other.phone })).toBe(other.phone);
    await suppressContact({ db }, { accountId, contact: other.phone, reason: "operator" });
    expect(await learn({ bsuid: other.bsuid })).toBe(other.bsuid);
    await applyUserPreferences(db.sql, [{ accountId, contactKey: other.bsuid, value: "stop", at: minutesAgo(5) }]);
    expect(await learn({ phone: other.phone, bsuid: other.bsuid })).toBe(other.phone);
    expect((await entryOf(other.phone)).map((e) => e.reason)).toEqual(["operator"]);
    await ingestProviderWebhook(deps, preference(other, "resume", minutesAgo(1)));
    expect(await suppressed(other.bsuid)).toBe(true);
  });

  it("the absorbed key's newer stop replaces the survivor's older one: a resume older than it leaves the person on the list", async () => {
    const stoppedAt = minutesAgo(10);
    const who = await twoKeysMerged((bsuid) =>
      applyUserPreferences(db.sql, [{ accountId, contactKey: bsuid, value: "stop", at: stoppedAt }]),
    );
    expect(await entryOf(who.phone)).toEqual([
      { reason: "user_preferences", at: Math.floor(stoppedAt.getTime() / 1000) },
    ]);

    // A resume from between the two stops (Meta redelivers a refused webhook late): older than the newest stop.
    await ingestProviderWebhook(deps, preference(who, "resume", minutesAgo(30)));
    expect(await suppressed(who.phone)).toBe(true);
    expect(await suppressed(who.bsuid)).toBe(true);

    // A resume newer than both takes the person off the list: a user's stop is the user's to lift.
    await ingestProviderWebhook(deps, preference(who, "resume", minutesAgo(1)));
    expect(await suppressed(who.phone)).toBe(false);
  });

  it("Meta's 131050 on the absorbed key, newer than the survivor's stop, is what the survivor keeps", async () => {
    const refusedAt = minutesAgo(10);
    const who = await twoKeysMerged((bsuid) =>
      db.sql.query(
        `INSERT INTO contact_suppressions (account_id, contact, reason, created_at) VALUES ($1, $2, 'provider_131050', $3)`,
        [accountId, bsuid, refusedAt],
      ),
    );
    expect(await entryOf(who.phone)).toEqual([
      { reason: "provider_131050", at: Math.floor(refusedAt.getTime() / 1000) },
    ]);
    await ingestProviderWebhook(deps, preference(who, "resume", minutesAgo(30)));
    expect(await suppressed(who.phone)).toBe(true);
  });
});
