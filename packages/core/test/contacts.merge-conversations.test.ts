// Issues 37 and 39: a customer's conversation follows them when two keys of one person merge. The absorbed key's
// handover to a person and Meta's thread holder move to the survivor (each by its own newest time), and the window
// keeps the newest message's field (standby or not). Run on the real SQL function (gateway_merge_contacts, as
// migrated) through core's services.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Db } from "@gw/db";
import type { MetaUserRef } from "@gw/meta";
import { testEnv } from "@gw/testkit";
import { readHandler, readThread } from "../src/conversations/index.ts";
import { learnUser } from "./support/contacts.ts";
import { openAccountIngest } from "./support/ingest-bed.ts";

let db: Db;
let accountId: string;
const PHONE_NUMBER_ID = `7${String(randomBytes(4).readUInt32BE(0)).padStart(14, "0")}`;
const WABA_ID = `8${String(randomBytes(4).readUInt32BE(0)).padStart(14, "0")}`;

beforeAll(async () => {
  ({ db, accountId } = await openAccountIngest(testEnv(), "Conversas na fusão", {
    phoneNumberId: PHONE_NUMBER_ID,
    wabaId: WABA_ID,
    displayNumber: "+55 11 4000-0039",
  }));
});

afterAll(async () => {
  await db.$disconnect();
});

const learn = (fields: Partial<MetaUserRef>) => learnUser(db, accountId, fields);
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
const keyed = (contactKey: string) => ({ accountId, phoneNumberId: PHONE_NUMBER_ID, contactKey });

async function conversationRow(contactKey: string, fields: Record<string, unknown>): Promise<void> {
  const columns = Object.keys(fields);
  await db.sql.query(
    `INSERT INTO conversations (account_id, contact_key, phone_number_id, ${columns.join(", ")})
      VALUES ($1::uuid, $2, $3, ${columns.map((_, i) => `$${i + 4}`).join(", ")})`,
    [accountId, contactKey, PHONE_NUMBER_ID, ...Object.values(fields)],
  );
}

describe("merging two keys of one person keeps their conversation", () => {
  it("moves the absorbed key's handover and thread holder to the survivor, each part by its newest time", async () => {
    const digits = String(randomBytes(4).readUInt32BE(0) % 10_000_000).padStart(7, "0");
    const phone = `551197${digits}`;
    const bsuid = `BR.39${digits}0001`;
    expect(await learn({ phone })).toBe(phone);
    expect(await learn({ bsuid })).toBe(bsuid);
    // The phone's key: Meta's AI agent passed it to the gateway an hour ago; no handover.
    await conversationRow(phone, {
      thread_holder: "gateway",
      thread_role: "escalation_partner",
      thread_source: "control_passed",
      thread_changed_at: minutesAgo(60),
    });
    // The BSUID's key: handed to a person five minutes ago, and the escalation partner took the thread since.
    await conversationRow(bsuid, {
      handler: "human",
      handler_note: "quer um atendente",
      handler_changed_at: minutesAgo(5),
      thread_holder: "another_app",
      thread_role: "escalation_partner",
      thread_source: "control_taken",
      thread_changed_at: minutesAgo(2),
    });

    expect(await learn({ phone, bsuid })).toBe(phone);
    expect(await readHandler(db.sql, keyed(phone))).toMatchObject({ value: "human", note: "quer um atendente" });
    expect(await readThread(db.sql, keyed(phone))).toMatchObject({ holder: "another_app", source: "control_taken" });
    const { rows } = await db.sql.query(`SELECT 1 FROM conversations WHERE account_id = $1 AND contact_key = $2`, [
      accountId,
      bsuid,
    ]);
    expect(rows).toEqual([]);
  });
});
