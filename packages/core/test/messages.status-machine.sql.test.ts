// The status machine is decided in SQL for whole batches (SHOULD_APPLY_SQL). This runs every (current, next)
// pair through the batch statement and through the TypeScript definition of spec 3.1, so the two cannot drift.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { MESSAGE_STATUS_RANK } from "@gw/contracts";
import { inTransaction, type Db } from "@gw/db";
import { createFixture, isolatedDatabase, type Fixture } from "@gw/testkit";
import { applyStatuses, lockWamids, shouldApply, type ProviderStatus, type StoredStatus } from "../src/events/index.ts";

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let db: Db;
let fixture: Fixture;

const CURRENT: StoredStatus[] = ["accepted", "sent", "delivered", "read", "failed"];
const NEXT: ProviderStatus[] = ["sent", "delivered", "read", "failed"];

beforeAll(async () => {
  database = await isolatedDatabase();
  db = database.db;
  fixture = await createFixture(db, "http://127.0.0.1:9/x");
});

afterAll(async () => {
  await database.drop();
});

async function message(wamid: string, status: StoredStatus): Promise<void> {
  await db.message.create({
    data: { accountId: fixture.accountId, phoneNumberId: "1000", to: "5511987654321", wamid, kind: "text", status },
  });
}

describe("the batch status statement applies exactly the transitions of spec 3.1", () => {
  it("agrees with shouldApply on every (current, next) pair, in one batch, with one delivery per applied transition", async () => {
    const pairs = CURRENT.flatMap((current) =>
      NEXT.map((next) => ({ current, next, wamid: `wamid.par.${current}.${next}` })),
    );
    for (const pair of pairs) await message(pair.wamid, pair.current);

    const deliveries = await inTransaction(db.sql, async (client) => {
      await lockWamids(
        client,
        pairs.map((p) => p.wamid),
      );
      return applyStatuses(
        client,
        pairs.map((p) => ({
          id: p.wamid,
          status: p.next,
          timestamp: "1767225600",
          ...(p.next === "failed" ? { errors: [{ code: 131026, title: "Message undeliverable" }] } : {}),
        })),
        { parkUnknown: true },
      );
    });

    const applied = pairs.filter((p) => shouldApply(p.current, p.next));
    // Sanity: the table is not trivial either way.
    expect(applied.length).toBeGreaterThan(5);
    expect(applied.length).toBeLessThan(pairs.length);
    for (const pair of pairs) {
      const row = await db.message.findUniqueOrThrow({ where: { wamid: pair.wamid } });
      expect({ pair: `${pair.current}→${pair.next}`, status: row.status }).toEqual({
        pair: `${pair.current}→${pair.next}`,
        status: shouldApply(pair.current, pair.next) ? pair.next : pair.current,
      });
    }
    expect(deliveries.map((d) => (d.data as { message_id: string }).message_id).sort()).toEqual(
      applied.map((p) => p.wamid).sort(),
    );
    for (const delivery of deliveries) {
      const data = delivery.data as { status: ProviderStatus; status_rank: number; error: { reason: string } | null };
      expect(data.status_rank).toBe(MESSAGE_STATUS_RANK[data.status]);
      expect(data.error === null).toBe(data.status !== "failed");
      if (data.error) expect(data.error.reason).toBe("recipient_unreachable");
    }
  });

  it("applies several statuses of one message in a batch in order, one event each, and parks unknown ones", async () => {
    await message("wamid.sequencia", "accepted");
    const deliveries = await inTransaction(db.sql, async (client) => {
      await lockWamids(client, ["wamid.sequencia", "wamid.desconhecido"]);
      return applyStatuses(
        client,
        [
          { id: "wamid.sequencia", status: "sent" },
          { id: "wamid.desconhecido", status: "delivered" },
          { id: "wamid.sequencia", status: "delivered" },
          { id: "wamid.sequencia", status: "read" },
          // A regression after read: ignored.
          { id: "wamid.sequencia", status: "delivered" },
        ],
        { parkUnknown: true },
      );
    });
    expect(deliveries.map((d) => (d.data as { status: string }).status)).toEqual(["sent", "delivered", "read"]);
    expect((await db.message.findUniqueOrThrow({ where: { wamid: "wamid.sequencia" } })).status).toBe("read");
    const parked = await db.earlyStatus.findMany({ where: { wamid: "wamid.desconhecido" } });
    expect(parked.map((p) => (p.payload as { status: string }).status)).toEqual(["delivered"]);
  });
});
