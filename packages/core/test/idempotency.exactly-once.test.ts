// Exactly once across a slow call and a dead worker (hardening items 3, 4 and 5): an Idempotency-Key reservation is
// only ever marked and completed by the call that holds it; a campaign recipient's send the worker never recorded is
// recorded from Meta's status webhook (its `biz_opaque_callback_data`); a recipient's key outlives any pause.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import type { Db } from "@gw/db";
import { isolatedDatabase, silentLogger } from "@gw/testkit";
import { ReservationLostError } from "../src/idempotency/idempotency.ts";
import { recipientCallbackData } from "../src/events/adopt.ts";
import { createAccountDirectory } from "../src/accounts/index.ts";
import type { Outbox } from "../src/deliveries/index.ts";
import { createIdempotencyStore } from "../src/idempotency/index.ts";
import { ingestProviderWebhook } from "../src/ingest/index.ts";
import { purgeExpiredIdempotencyKeys } from "../src/retention/index.ts";

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let db: Db;
let accountId: string;
const PHONE_NUMBER_ID = "100000000000042";
const WABA_ID = "200000000000042";

interface Outcome {
  kind: "sent" | "unconfirmed";
  n?: number;
}

const UNCONFIRMED: Outcome = { kind: "unconfirmed" };
const store = (staleAfterMs = 60_000) =>
  createIdempotencyStore<Outcome>(db, { ttlHours: 48, staleAfterMs, unconfirmed: UNCONFIRMED });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const key = () => `chave-${randomBytes(4).toString("hex")}`;

beforeAll(async () => {
  database = await isolatedDatabase();
  db = database.db;
  accountId = (await db.account.create({ data: { name: "Exatamente uma vez" } })).id;
  await db.businessNumber.create({
    data: { accountId, phoneNumberId: PHONE_NUMBER_ID, wabaId: WABA_ID, displayNumber: "+55 11 4000-0042" },
  });
});

afterAll(async () => {
  await database.drop();
});

describe("a reservation is only marked and completed by the call that holds it", () => {
  it("a call whose stale reservation a repeat took over cannot mark the provider call (it must not send)", async () => {
    const keys = store(50);
    const input = { accountId, key: key(), fingerprint: "f", requestId: null };
    const first = await keys.reserve(input);
    expect(first.kind).toBe("reserved");
    await sleep(120);
    // The repeat finds it stale and never marked: frees it and reserves for itself.
    const second = await keys.reserve(input);
    expect(second.kind).toBe("reserved");
    if (first.kind !== "reserved" || second.kind !== "reserved") throw new Error("unreachable");
    expect(second.id).not.toBe(first.id);

    await expect(keys.markProviderCall(first.id)).rejects.toBeInstanceOf(ReservationLostError);
    await expect(keys.markProviderCall(second.id)).resolves.toBeUndefined();
  });

  it("a reservation settled by a repeat is not marked again; its completion by the marking call replaces unconfirmed", async () => {
    const keys = store(50);
    const input = { accountId, key: key(), fingerprint: "f", requestId: null };
    const first = await keys.reserve(input);
    if (first.kind !== "reserved") throw new Error("unreachable");
    await keys.markProviderCall(first.id);
    await sleep(120);
    // Stale after reaching the provider: the repeat settles it unconfirmed (never a resend).
    expect(await keys.reserve(input)).toEqual({ kind: "replay", outcome: UNCONFIRMED });
    await expect(keys.markProviderCall(first.id)).rejects.toBeInstanceOf(ReservationLostError);
    // The slow call that did reach the provider records what really happened.
    expect(await keys.complete(db.sql, first.id, { kind: "sent", n: 1 }, "wamid.lento")).toBe(true);
    expect(await keys.reserve(input)).toEqual({ kind: "replay", outcome: { kind: "sent", n: 1 } });
    // A `sent` is never downgraded.
    expect(await keys.complete(db.sql, first.id, UNCONFIRMED)).toBe(false);
    expect(await keys.reserve(input)).toEqual({ kind: "replay", outcome: { kind: "sent", n: 1 } });
  });

  it("a reservation that is gone completes nothing and says so", async () => {
    const keys = store();
    const reserved = await keys.reserve({ accountId, key: key(), fingerprint: "f", requestId: null });
    if (reserved.kind !== "reserved") throw new Error("unreachable");
    await keys.markProviderCall(reserved.id);
    await db.sql.query(`DELETE FROM idempotency_keys WHERE id = $1`, [reserved.id]);
    expect(await keys.complete(db.sql, reserved.id, { kind: "sent" })).toBe(false);
  });
});

/** A running campaign with one recipient per contact given, all `queued`. */
async function campaignWith(contacts: string[]): Promise<{ campaignId: string; recipientIds: string[] }> {
  const campaign = await db.campaign.create({
    data: {
      accountId,
      name: "Campanha",
      phoneNumberId: PHONE_NUMBER_ID,
      templateName: "pedido_confirmado",
      templateLanguage: "pt_BR",
      status: "running",
      createdBy: "test",
    },
  });
  const recipientIds: string[] = [];
  for (const [index, contact] of contacts.entries()) {
    const row = await db.campaignRecipient.create({
      data: { campaignId: campaign.id, rowNumber: index + 2, contact, status: "queued", clientRef: `ref-${index}` },
    });
    recipientIds.push(row.id.toString());
  }
  return { campaignId: campaign.id, recipientIds };
}

describe("a campaign recipient's key outlives a pause longer than the TTL", () => {
  it("never expires while its recipient is `sending`; the purge removes it once the recipient is settled", async () => {
    const { recipientIds } = await campaignWith(["5511955550001"]);
    const recipientId = recipientIds[0]!;
    await db.sql.query(`UPDATE campaign_recipients SET status = 'sending' WHERE id = $1`, [recipientId]);
    const keys = store();
    const input = {
      accountId,
      key: `campaign:${recipientId}`,
      fingerprint: null,
      requestId: null,
      retention: "until-settled" as const,
    };
    const reserved = await keys.reserve(input);
    if (reserved.kind !== "reserved") throw new Error("unreachable");
    await keys.markProviderCall(reserved.id);
    await keys.complete(db.sql, reserved.id, { kind: "sent", n: 7 }, "wamid.pausa");
    // A week later (the campaign paused all along), the row still `sending`: kept, and a redrive replays it.
    const weekLater = new Date(Date.now() + 7 * 24 * 3_600_000);
    await purgeExpiredIdempotencyKeys({ db }, { now: weekLater });
    expect(await keys.reserve(input)).toEqual({ kind: "replay", outcome: { kind: "sent", n: 7 } });

    await db.sql.query(`UPDATE campaign_recipients SET status = 'sent' WHERE id = $1`, [recipientId]);
    expect(await purgeExpiredIdempotencyKeys({ db }, { now: new Date() })).toBe(0);
    expect(await purgeExpiredIdempotencyKeys({ db }, { now: weekLater })).toBe(1);
    expect(await db.idempotencyKey.count({ where: { accountId, key: input.key } })).toBe(0);
  });

  it("an integrator's own key named like a campaign key never breaks the purge", async () => {
    await db.idempotencyKey.create({
      data: { accountId, key: "campaign:não-é-número", fingerprint: "f", state: "completed", expiresAt: new Date() },
    });
    await expect(purgeExpiredIdempotencyKeys({ db }, { now: new Date(Date.now() + 1_000) })).resolves.toBeGreaterThan(
      0,
    );
  });
});

describe("a campaign send its worker never recorded is recorded from Meta's status", () => {
  const outbox: Outbox = { dispatch: () => Promise.resolve() };
  const ingest = (statuses: Record<string, unknown>[], phoneNumberId: string | null = PHONE_NUMBER_ID) => {
    const body = JSON.stringify({
      object: "whatsapp_business_account",
      entry: [
        {
          id: WABA_ID,
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                ...(phoneNumberId === null
                  ? {}
                  : { metadata: { display_phone_number: "551140000042", phone_number_id: phoneNumberId } }),
                statuses,
              },
            },
          ],
        },
      ],
    });
    return ingestProviderWebhook({ db, directory: createAccountDirectory(db), outbox, logger: silentLogger }, body);
  };
  const status = (wamid: string, recipientId: string, value: string, to: string) => ({
    id: wamid,
    status: value,
    timestamp: String(Math.floor(Date.now() / 1000)),
    recipient_id: to,
    recipient_user_id: "BR.9000000000042",
    biz_opaque_callback_data: recipientCallbackData(recipientId),
  });

  /** The recipient claimed and its key marked as the worker does, then the worker dies before recording. */
  async function sentButNeverRecorded(recipientId: string) {
    await db.sql.query(`UPDATE campaign_recipients SET status = 'sending', reserved_at = now() WHERE id = $1`, [
      recipientId,
    ]);
    const keys = store();
    const reserved = await keys.reserve({
      accountId,
      key: `campaign:${recipientId}`,
      fingerprint: null,
      requestId: null,
      retention: "until-settled",
    });
    if (reserved.kind !== "reserved") throw new Error("unreachable");
    await keys.markProviderCall(reserved.id);
    return keys;
  }

  it("a delivered parked before its sent, then the sent naming the recipient: message recorded, recipient sent, key sent, every status applied", async () => {
    const contact = "5511955550011";
    const { campaignId, recipientIds } = await campaignWith([contact]);
    const recipientId = recipientIds[0]!;
    const keys = await sentButNeverRecorded(recipientId);
    const wamid = `wamid.adotado-${randomBytes(3).toString("hex")}`;

    await ingest([status(wamid, recipientId, "delivered", contact)]);
    // `delivered` alone does not adopt (a message's first status does): parked.
    expect(await db.message.findUnique({ where: { wamid } })).toBeNull();
    await ingest([status(wamid, recipientId, "sent", contact)]);

    const message = await db.message.findUniqueOrThrow({ where: { wamid } });
    expect(message).toMatchObject({
      accountId,
      campaignId,
      to: contact,
      status: "delivered",
      templateName: "pedido_confirmado",
      clientRef: "ref-0",
      recipientUserId: "BR.9000000000042",
    });
    const recipient = await db.campaignRecipient.findUniqueOrThrow({ where: { id: BigInt(recipientId) } });
    expect(recipient).toMatchObject({ status: "sent", wamid, messageId: message.id, errorCode: null });
    const replay = await keys.reserve({
      accountId,
      key: `campaign:${recipientId}`,
      fingerprint: null,
      requestId: null,
    });
    expect(replay).toMatchObject({ kind: "replay", outcome: { kind: "sent", message: { messageId: wamid } } });
    const audit = await db.auditEntry.findMany({ where: { accountId, target: `message:${wamid}` } });
    expect(audit).toHaveLength(1);
  });

  it("upgrades a recipient the redrive already settled send_unconfirmed", async () => {
    const contact = "5511955550012";
    const { recipientIds } = await campaignWith([contact]);
    const recipientId = recipientIds[0]!;
    await sentButNeverRecorded(recipientId);
    await db.sql.query(
      `UPDATE campaign_recipients SET status = 'failed', error_code = 'send_unconfirmed' WHERE id = $1`,
      [recipientId],
    );
    await db.sql.query(
      `UPDATE idempotency_keys SET state = 'completed', outcome = '{"kind":"unconfirmed"}' WHERE key = $1`,
      [`campaign:${recipientId}`],
    );
    const wamid = `wamid.tarde-${randomBytes(3).toString("hex")}`;
    await ingest([status(wamid, recipientId, "sent", contact)]);
    expect(await db.campaignRecipient.findUniqueOrThrow({ where: { id: BigInt(recipientId) } })).toMatchObject({
      status: "sent",
      wamid,
      errorCode: null,
    });
  });

  it("never adopts from a status of another number (another account's, or another of the account's), nor one without its number", async () => {
    const contact = "5511955550015";
    const { recipientIds } = await campaignWith([contact]);
    const recipientId = recipientIds[0]!;
    await sentButNeverRecorded(recipientId);
    const foreignAccount = (await db.account.create({ data: { name: "Outra conta" } })).id;
    await db.businessNumber.create({
      data: {
        accountId: foreignAccount,
        phoneNumberId: "100000000000043",
        wabaId: "200000000000043",
        displayNumber: "+55 11 4000-0043",
      },
    });
    await db.businessNumber.create({
      data: { accountId, phoneNumberId: "100000000000044", wabaId: WABA_ID, displayNumber: "+55 11 4000-0044" },
    });
    const stillSending = async () =>
      expect(await db.campaignRecipient.findUniqueOrThrow({ where: { id: BigInt(recipientId) } })).toMatchObject({
        status: "sending",
        wamid: null,
      });

    // Another account's number sends a message whose callback names this account's recipient.
    const foreign = `wamid.alheio-${randomBytes(3).toString("hex")}`;
    await ingest([status(foreign, recipientId, "sent", contact)], "100000000000043");
    expect(await db.message.findUnique({ where: { wamid: foreign } })).toBeNull();
    await stillSending();
    // Another number of the same account is not the campaign's number either.
    const sibling = `wamid.irmao-${randomBytes(3).toString("hex")}`;
    await ingest([status(sibling, recipientId, "sent", contact)], "100000000000044");
    expect(await db.message.findUnique({ where: { wamid: sibling } })).toBeNull();
    await stillSending();
    // A status whose change names no number (statuses are applied without it) proves no number either.
    const unnamed = `wamid.sem-numero-${randomBytes(3).toString("hex")}`;
    await ingest([status(unnamed, recipientId, "sent", contact)], null);
    expect(await db.message.findUnique({ where: { wamid: unnamed } })).toBeNull();
    await stillSending();

    // The campaign's own number's status is adopted (the recipient was adoptable all along).
    const own = `wamid.proprio-${randomBytes(3).toString("hex")}`;
    await ingest([status(own, recipientId, "sent", contact)]);
    expect(await db.message.findUnique({ where: { wamid: own } })).toMatchObject({ accountId, wamid: own });
  });

  it("never adopts a send that did not reach the provider, nor a recipient already sent, nor another's message", async () => {
    const { recipientIds } = await campaignWith(["5511955550013", "5511955550014"]);
    const [unmarked, alreadySent] = recipientIds as [string, string];
    // Claimed, key reserved but never marked: the provider was not called for it.
    await db.sql.query(`UPDATE campaign_recipients SET status = 'sending' WHERE id = $1`, [unmarked]);
    await store().reserve({ accountId, key: `campaign:${unmarked}`, fingerprint: null, requestId: null });
    const forged = `wamid.forjado-${randomBytes(3).toString("hex")}`;
    await ingest([status(forged, unmarked, "sent", "5511955550013")]);
    expect(await db.message.findUnique({ where: { wamid: forged } })).toBeNull();
    expect((await db.campaignRecipient.findUniqueOrThrow({ where: { id: BigInt(unmarked) } })).status).toBe("sending");

    await sentButNeverRecorded(alreadySent);
    await db.sql.query(`UPDATE campaign_recipients SET status = 'sent', wamid = 'wamid.original' WHERE id = $1`, [
      alreadySent,
    ]);
    const other = `wamid.outro-${randomBytes(3).toString("hex")}`;
    await ingest([status(other, alreadySent, "sent", "5511955550014")]);
    expect(await db.message.findUnique({ where: { wamid: other } })).toBeNull();
    expect((await db.campaignRecipient.findUniqueOrThrow({ where: { id: BigInt(alreadySent) } })).wamid).toBe(
      "wamid.original",
    );
  });
});
