import { describe, expect, it } from "@jest/globals";
import { inTransaction } from "@gw/db";
import { isolatedDatabase, testActor } from "@gw/testkit";
import { addBusinessNumber, createAccount } from "../src/accounts/index.ts";
import { applyStatuses, lockWamids } from "../src/events/index.ts";
import { storeAcceptedMessage } from "../src/messages/index.ts";
import { databaseOfItsOwn } from "./support/own-database.ts";

const own = databaseOfItsOwn(() => isolatedDatabase());

describe("a provider status that arrives while the send is being committed", () => {
  it("waits for the send's commit and is applied, instead of being parked in early_statuses for ever", async () => {
    const account = await createAccount({ db: own.db }, { actor: testActor, name: "corrida" });
    const phoneNumberId = `9${Date.now()}`;
    await addBusinessNumber(
      { db: own.db },
      {
        actor: testActor,
        accountId: account.id,
        phoneNumberId,
        wabaId: `w${phoneNumberId}`,
        displayNumber: "+55 11 4000-0000",
      },
    );
    const wamid = `wamid.corrida.${Date.now()}`;

    let stored!: () => void;
    const messageStored = new Promise<void>((resolve) => (stored = resolve));
    let commitSend!: () => void;
    const sendMayCommit = new Promise<void>((resolve) => (commitSend = resolve));
    let webhookFinished = false;

    // The send's transaction: the message is stored (and early statuses looked at), but not committed yet.
    const send = inTransaction(own.db.sql, async (client) => {
      await storeAcceptedMessage(client, {
        accountId: account.id,
        phoneNumberId,
        to: "5511987654321",
        wamid,
        kind: "text",
        templateName: null,
        clientRef: null,
        campaignId: null,
        requestId: "req-corrida",
        actor: "test",
      });
      stored();
      await sendMayCommit;
    });
    await messageStored;

    // Meta's `failed` for that wamid arrives now, in the webhook's own transaction (as ingestion runs it).
    const webhook = inTransaction(own.db.sql, async (client) => {
      await lockWamids(client, [wamid]);
      return applyStatuses(
        client,
        [
          {
            id: wamid,
            status: "failed",
            timestamp: String(Math.floor(Date.now() / 1000)),
            errors: [{ code: 131026, title: "Message undeliverable" }],
          },
        ],
        { parkUnknown: true },
      );
    }).finally(() => {
      webhookFinished = true;
    });

    // Give the webhook every chance to finish on its own: it must not, while the send is still open.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(webhookFinished).toBe(false);
    commitSend();
    await Promise.all([send, webhook]);

    const message = await own.db.message.findUniqueOrThrow({ where: { wamid } });
    expect(message).toMatchObject({ status: "failed", errorCode: 131026, errorReason: "recipient_unreachable" });
    expect(await own.db.earlyStatus.count({ where: { wamid } })).toBe(0);
  });
});
