import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createAccount } from "@gw/core/accounts";
import { eventually, isolatedDatabase, testActor } from "@gw/testkit";
import { openBed, type DispatcherBed } from "./support.ts";

// The dispatcher runs the cost ledger's daily rollup as a maintenance task: at start it rolls the closed São Paulo
// days of priced messages, and leaves today's to the live aggregation. A database of its own (the rollup is global).

let bed: DispatcherBed;

beforeAll(async () => {
  bed = openBed(await isolatedDatabase());
});

afterAll(async () => {
  await bed.close();
});

describe("dispatcher pricing rollup", () => {
  it("rolls yesterday's priced messages at start, not today's, and records how far it got", async () => {
    const db = bed.db;
    const { id: accountId } = await createAccount({ db }, { name: "Padaria", actor: testActor });
    const pricing = { pricing_model: "PMP", category: "marketing", type: "regular" };
    const sent = (wamid: string, createdAt: Date) =>
      db.message.create({
        data: {
          accountId,
          phoneNumberId: "1000",
          to: "5511999990000",
          wamid,
          kind: "template",
          status: "sent",
          createdAt,
          pricing,
        },
      });
    await sent("wamid.ontem", new Date(Date.now() - 36 * 3600_000));
    await sent("wamid.agora", new Date());

    await bed.startDispatcher();

    const state = await eventually(() => db.pricingRollupState.findUnique({ where: { id: "messages" } }), {
      what: "the rollup run at start",
    });
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "America/Sao_Paulo" }).format(new Date());
    expect(state.rolledBefore.toISOString().slice(0, 10)).toBe(today);
    const rows = await db.messagePricingDay.findMany({ where: { accountId } });
    // One message 36 h ago: yesterday or the day before in São Paulo, never today.
    expect(rows.map((row) => [row.category, row.pricingType, row.messages])).toEqual([["marketing", "regular", 1]]);
    expect((rows[0]?.day.toISOString().slice(0, 10) ?? today) < today).toBe(true);
  });
});
