// Issue 34: sends accepted side by side are recorded in one transaction (group commit, as status webhooks are), each
// exactly as when alone: its message once, its audit entry, its Idempotency-Key's answer, and the deliveries of the
// statuses that arrived before it, which are its own to queue (a job never carries two sends' deliveries).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDb, type Db } from "@gw/db";
import { createFixture, testEnv, type Fixture } from "@gw/testkit";
import { createIdempotencyStore, fingerprint } from "../src/idempotency/index.ts";
import {
  createSendRecorder,
  recordAcceptedSends,
  UNCONFIRMED_SEND,
  type AcceptedSend,
  type SettledSend,
} from "../src/messages/index.ts";

let db: Db;
let fixture: Fixture;

beforeAll(async () => {
  db = createDb({ url: testEnv().databaseUrl, poolSize: 4 });
  fixture = await createFixture(db, "http://127.0.0.1:9/x");
});

afterAll(async () => {
  await db.$disconnect();
});

const run = `${Date.now()}`;

/** An accepted send whose key was reserved and marked as calling the provider, as the send leaves it. */
async function acceptedSend(n: number): Promise<AcceptedSend> {
  const store = createIdempotencyStore<SettledSend>(db, {
    ttlHours: 24,
    staleAfterMs: 60_000,
    unconfirmed: UNCONFIRMED_SEND,
  });
  const key = `grupo-${run}-${n}`;
  const reserved = await store.reserve({
    accountId: fixture.accountId,
    key,
    fingerprint: fingerprint({ key }),
    requestId: `req-${n}`,
  });
  if (reserved.kind !== "reserved") throw new Error("expected a reservation");
  await store.markProviderCall(reserved.id);
  return {
    accountId: fixture.accountId,
    phoneNumberId: "1000",
    to: `551198888${String(n).padStart(4, "0")}`,
    wamid: `wamid.grupo.${run}.${n}`,
    kind: "text",
    templateName: null,
    clientRef: `pedido-${n}`,
    campaignId: null,
    requestId: `req-${n}`,
    actor: "api_key:grupo",
    reservationId: reserved.id,
  };
}

/** A status Meta sent before the send was recorded, parked as the ingestion parks it. */
async function parkEarlyStatus(wamid: string, status: string): Promise<void> {
  await db.sql.query(`INSERT INTO early_statuses (wamid, payload) VALUES ($1, $2::jsonb)`, [
    wamid,
    JSON.stringify({
      id: wamid,
      status,
      timestamp: String(Math.floor(Date.now() / 1000)),
      recipient_id: "5511988880000",
    }),
  ]);
}

describe("sends recorded together", () => {
  it("commit each send as alone, and hand each its own deliveries of the statuses that came first", async () => {
    const sends = [await acceptedSend(1), await acceptedSend(2), await acceptedSend(3)];
    const [one, two, three] = sends;
    if (!one || !two || !three) throw new Error("three sends expected");
    await parkEarlyStatus(one.wamid, "sent");
    await parkEarlyStatus(one.wamid, "delivered");
    await parkEarlyStatus(three.wamid, "sent");

    const bySend = await recordAcceptedSends({ db }, sends);

    expect(bySend.map((deliveries) => deliveries.length)).toEqual([2, 0, 1]);
    for (const [index, deliveries] of bySend.entries()) {
      const own = new Set(deliveries.map((d) => d.deliveryId));
      // A job of several first attempts is named by one of its deliveries: never another send's.
      for (const d of deliveries) expect(d.batchId === null || own.has(d.batchId)).toBe(true);
      const bodies = await db.delivery.findMany({ where: { id: { in: [...own].map((id) => BigInt(id)) } } });
      expect(bodies.every((b) => b.body.includes(sends[index]?.wamid ?? "?"))).toBe(true);
    }
    for (const send of sends) {
      expect(await db.message.findUniqueOrThrow({ where: { wamid: send.wamid } })).toMatchObject({
        clientRef: send.clientRef,
        status: send === two ? "accepted" : send === one ? "delivered" : "sent",
      });
      expect(await db.auditEntry.count({ where: { target: `message:${send.wamid}` } })).toBe(1);
      expect(
        await db.idempotencyKey.findUniqueOrThrow({ where: { id: BigInt(send.reservationId ?? "0") } }),
      ).toMatchObject({
        state: "completed",
        wamid: send.wamid,
        outcome: { kind: "sent", message: { messageId: send.wamid, to: send.to } },
      });
    }
    expect(await db.earlyStatus.count({ where: { wamid: { in: sends.map((s) => s.wamid) } } })).toBe(0);

    // Recorded again (a journal replayed): nothing changes.
    expect(await recordAcceptedSends({ db }, sends)).toEqual([[], [], []]);
    expect(await db.auditEntry.count({ where: { target: { in: sends.map((s) => `message:${s.wamid}`) } } })).toBe(3);
  });

  it("share a transaction when accepted while another commit runs, and a bad one fails alone", async () => {
    const batches: number[] = [];
    const recorder = createSendRecorder(
      { db },
      { maxBatch: 50, maxInFlight: 1, onBatch: (size) => batches.push(size) },
    );
    const sends = [await acceptedSend(4), await acceptedSend(5), await acceptedSend(6), await acceptedSend(7)];
    // Not a uuid: the statement refuses it, for its batch and then alone.
    const bad: AcceptedSend = { ...(await acceptedSend(8)), accountId: "conta-que-nao-existe" };

    const outcomes = await Promise.allSettled([...sends, bad].map((send) => recorder.record(send)));

    // The first went alone; the rest, made meanwhile, together; then each of that batch alone, after its failure.
    expect(batches.slice(0, 2)).toEqual([1, 4]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "fulfilled", "rejected"]);
    expect(await db.message.count({ where: { wamid: { in: sends.map((s) => s.wamid) } } })).toBe(4);
  });
});
