// Issues 37 and 39 share one row per conversation: who answers on the business's side (the handler) and who holds
// Meta's thread. Each is written alone; neither hides the other. Run on the migrated table through core's services.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Db } from "@gw/db";
import { testEnv } from "@gw/testkit";
import { applyHandovers, readHandler, readThread } from "../src/conversations/index.ts";
import { openAccountIngest } from "./support/ingest-bed.ts";

let db: Db;
let accountId: string;
const PHONE_NUMBER_ID = `9${String(randomBytes(4).readUInt32BE(0)).padStart(14, "0")}`;
const WABA_ID = `4${String(randomBytes(4).readUInt32BE(0)).padStart(14, "0")}`;

beforeAll(async () => {
  ({ db, accountId } = await openAccountIngest(testEnv(), "Conversa de duas partes", {
    phoneNumberId: PHONE_NUMBER_ID,
    wabaId: WABA_ID,
    displayNumber: "+55 11 4000-0040",
  }));
});

afterAll(async () => {
  await db.$disconnect();
});

describe("a conversation's handler and thread holder", () => {
  it("records Meta's first handover on a conversation a person already holds, and keeps the person", async () => {
    const phone = `551198${String(randomBytes(4).readUInt32BE(0) % 10_000_000).padStart(7, "0")}`;
    const key = { accountId, phoneNumberId: PHONE_NUMBER_ID, contactKey: phone };
    // Handed to a person first (issue 39): the row exists, with no thread move yet.
    await db.sql.query(
      `INSERT INTO conversations (account_id, contact_key, phone_number_id, handler, handler_note, handler_changed_at)
        VALUES ($1::uuid, $2, $3, 'human', 'quer um atendente', now())`,
      [accountId, phone, PHONE_NUMBER_ID],
    );
    const handover = {
      phoneNumberId: PHONE_NUMBER_ID,
      type: "control_passed" as const,
      time: new Date(),
      user: { phone, bsuid: null, parentBsuid: null, username: null, name: null },
      previousRole: "ai_agent",
      currentRole: "escalation_partner",
      metadata: null,
    };
    await applyHandovers(db.sql, [{ accountId, handover, contactKey: phone, receivedAt: new Date() }]);
    expect(await readThread(db.sql, key)).toMatchObject({
      holder: "gateway",
      role: "escalation_partner",
      source: "control_passed",
    });
    expect(await readHandler(db.sql, key)).toMatchObject({ value: "human", note: "quer um atendente" });
  });
});
