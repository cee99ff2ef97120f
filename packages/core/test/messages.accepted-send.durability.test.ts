// What must hold around the provider call: a reservation that never reached the provider is freed, one that did is
// settled as send_unconfirmed; and a send the provider accepted is recorded even when PostgreSQL cannot take it at
// that moment (retried, then journaled in Redis and replayed), with the Idempotency-Key completed and the wamid kept.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDb, type Db } from "@gw/db";
import { createRedis, type Redis } from "@gw/jobs";
import { createFixture, freePort, isolatedDatabase, silentLogger, testEnv, type Fixture } from "@gw/testkit";
import { createIdempotencyStore, fingerprint, type IdempotencyStore } from "../src/idempotency/index.ts";
import {
  commitAcceptedSend,
  createSendJournal,
  recordAcceptedSend,
  UNCONFIRMED_SEND,
  type AcceptedSend,
  type SettledSend,
} from "../src/messages/index.ts";

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let db: Db;
let redis: Redis;
let prefix: string;
let fixture: Fixture;
let idempotency: IdempotencyStore<SettledSend>;
const STALE_MS = 200;

beforeAll(async () => {
  database = await isolatedDatabase();
  db = database.db;
  const env = testEnv();
  redis = createRedis(env.redisUrl);
  prefix = env.redisPrefix;
  fixture = await createFixture(db, "http://127.0.0.1:9/x");
  idempotency = createIdempotencyStore<SettledSend>(db, {
    ttlHours: 24,
    staleAfterMs: STALE_MS,
    unconfirmed: UNCONFIRMED_SEND,
  });
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  await database.drop();
});

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function reserveInput(key: string) {
  return { accountId: fixture.accountId, key, fingerprint: fingerprint({ key }), requestId: null };
}

describe("a reservation left by a process that died", () => {
  it("is freed when the provider was never called: the same key may send", async () => {
    const first = await idempotency.reserve(reserveInput("morreu-antes"));
    expect(first.kind).toBe("reserved");
    await wait(STALE_MS + 100);
    const again = await idempotency.reserve(reserveInput("morreu-antes"));
    expect(again.kind).toBe("reserved");
    expect(again).not.toEqual(first);
  });

  it("is settled as unconfirmed when the provider call had started: the key never sends again", async () => {
    const first = await idempotency.reserve(reserveInput("morreu-durante"));
    if (first.kind !== "reserved") throw new Error("expected a reservation");
    await idempotency.markProviderCall(first.id);
    await wait(STALE_MS + 100);
    const again = await idempotency.reserve(reserveInput("morreu-durante"));
    expect(again).toEqual({ kind: "replay", outcome: { kind: "unconfirmed", messageId: null } });
  });
});

describe("a key the gateway makes itself (a campaign recipient's)", () => {
  it("is never compared with a fingerprint: a repeat is in flight or replayed, never a conflict", async () => {
    // Reserved with a fingerprint (as a worker of the previous release did), repeated without one.
    const first = await idempotency.reserve(reserveInput("campaign:1"));
    if (first.kind !== "reserved") throw new Error("expected a reservation");
    const own = { accountId: fixture.accountId, key: "campaign:1", fingerprint: null, requestId: null };
    await expect(idempotency.reserve(own)).rejects.toMatchObject({ code: "idempotency_in_flight" });
    await idempotency.markProviderCall(first.id);
    await idempotency.complete(db.sql, first.id, UNCONFIRMED_SEND);
    expect(await idempotency.reserve(own)).toEqual({ kind: "replay", outcome: UNCONFIRMED_SEND });
  });
});

describe("a key completed by the release that kept HTTP answers", () => {
  it("is answered as unconfirmed when no outcome can be read, and never sends again", async () => {
    // What a pod of the previous release writes during a rolling update: the answer, no outcome.
    await db.idempotencyKey.create({
      data: {
        accountId: fixture.accountId,
        key: "antes-da-versao",
        fingerprint: fingerprint({ key: "antes-da-versao" }),
        state: "completed",
        responseStatus: 200,
        responseBody: '{"success":true}',
        expiresAt: new Date(Date.now() + 86_400_000),
      },
    });
    expect(await idempotency.reserve(reserveInput("antes-da-versao"))).toEqual({
      kind: "replay",
      outcome: { kind: "unconfirmed", messageId: null },
    });
  });
});

describe("a send the provider accepted while PostgreSQL could not take it", () => {
  it("is journaled, then recorded by the replay: message, audit, the key's answer and its wamid", async () => {
    const reserved = await idempotency.reserve(reserveInput("journal"));
    if (reserved.kind !== "reserved") throw new Error("expected a reservation");
    // The provider was called (and accepted it) before PostgreSQL went away.
    await idempotency.markProviderCall(reserved.id);
    const send: AcceptedSend = {
      accountId: fixture.accountId,
      phoneNumberId: "1000",
      to: "5511987654321",
      wamid: `wamid.journal.${Date.now()}`,
      kind: "text",
      templateName: null,
      clientRef: "pedido-1",
      campaignId: null,
      requestId: "req-journal",
      actor: "api_key:test",
      reservationId: reserved.id,
    };
    const down = createDb({ url: `postgresql://postgres@127.0.0.1:${await freePort()}/fora`, poolSize: 1 });
    const journal = createSendJournal({ redis, keyPrefix: prefix, logger: silentLogger });
    try {
      const outcome = await commitAcceptedSend(
        { db: down, journal, logger: silentLogger, commitPolicy: { retryForMs: 300, firstDelayMs: 50 } },
        send,
      );
      expect(outcome).toEqual({ kind: "journaled" });
    } finally {
      await down.$disconnect();
    }
    expect(await db.message.count({ where: { wamid: send.wamid } })).toBe(0);
    expect(await journal.size()).toBe(1);

    const queued: string[] = [];
    const replayed = await journal.replay((entry) => recordAcceptedSend({ db }, entry), {
      dispatch: (deliveries) => {
        queued.push(...deliveries.map((d) => d.deliveryId));
        return Promise.resolve();
      },
    });

    expect(replayed).toBe(1);
    expect(await journal.size()).toBe(0);
    expect(await db.message.findUniqueOrThrow({ where: { wamid: send.wamid } })).toMatchObject({
      status: "accepted",
      clientRef: "pedido-1",
    });
    expect(await db.auditEntry.count({ where: { target: `message:${send.wamid}` } })).toBe(1);
    expect(await db.idempotencyKey.findUniqueOrThrow({ where: { id: BigInt(reserved.id) } })).toMatchObject({
      state: "completed",
      outcome: {
        kind: "sent",
        message: { messageId: send.wamid, to: send.to, type: "text", phoneNumberId: "1000", clientRef: "pedido-1" },
      },
      wamid: send.wamid,
    });
    // Replaying the same entry again (another pod, a crash before LREM) changes nothing.
    await recordAcceptedSend({ db }, send);
    expect(await db.auditEntry.count({ where: { target: `message:${send.wamid}` } })).toBe(1);
  });

  it("without a journal, the outcome is lost and the caller answers send_unconfirmed", async () => {
    const down = createDb({ url: `postgresql://postgres@127.0.0.1:${await freePort()}/fora`, poolSize: 1 });
    try {
      const outcome = await commitAcceptedSend(
        {
          db: down,
          journal: null,
          logger: silentLogger,
          commitPolicy: { retryForMs: 100, firstDelayMs: 50 },
        },
        {
          accountId: fixture.accountId,
          phoneNumberId: "1000",
          to: "5511987654321",
          wamid: "wamid.perdida",
          kind: "text",
          templateName: null,
          clientRef: null,
          campaignId: null,
          requestId: "r",
          actor: "a",
          reservationId: null,
        },
      );
      expect(outcome.kind).toBe("lost");
    } finally {
      await down.$disconnect();
    }
  });
});
