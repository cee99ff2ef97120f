import { beforeEach, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { Prisma } from "@gw/db";
import { isolatedDatabase, testActor } from "@gw/testkit";
import { createAccount } from "../src/accounts/index.ts";
import {
  listPricingRates,
  rollupPricingDays,
  setPricingRate,
  usageReport,
  type UsageDimension,
} from "../src/pricing/index.ts";
import { databaseOfItsOwn } from "./support/own-database.ts";

// The cost ledger against a database of its own (the rollup and the deployment's rate card are global): what is
// charged, at which rate, on which São Paulo day, grouped as asked; the rollup agreeing with the live aggregation;
// rates that change over time without re-pricing the past.

const own = databaseOfItsOwn(() => isolatedDatabase());

async function account(): Promise<string> {
  return (await createAccount({ db: own.db }, { name: `custos-${randomBytes(3).toString("hex")}`, actor: testActor }))
    .id;
}

interface Sent {
  at: string;
  category?: string | null;
  type?: string | null;
  number?: string;
  priced?: boolean;
  status?: string;
}

/** Messages as the status path leaves them: `pricing` verbatim, or none when Meta reported none (yet). */
async function sends(accountId: string, messages: readonly Sent[]): Promise<void> {
  for (const message of messages) {
    await own.db.message.create({
      data: {
        accountId,
        phoneNumberId: message.number ?? "1000",
        to: "5511999990000",
        wamid: `wamid.${randomBytes(8).toString("hex")}`,
        kind: "template",
        status: message.status ?? "delivered",
        createdAt: new Date(message.at),
        ...(message.priced === false
          ? {}
          : {
              pricing: {
                pricing_model: "PMP",
                category: message.category ?? null,
                type: message.type === undefined ? "regular" : message.type,
              },
            }),
      },
    });
  }
}

const report = (accountId: string, since: string, until: string, groupBy: UsageDimension[], phoneNumberId?: string) =>
  usageReport({ db: own.db }, { accountId, since, until, groupBy, phoneNumberId });

describe("the cost ledger", () => {
  it("charges only pricing.type regular, each category at its default rate, and keeps every value verbatim", async () => {
    const accountId = await account();
    await sends(accountId, [
      { at: "2026-11-10T15:00:00Z", category: "marketing" },
      { at: "2026-11-10T15:00:01Z", category: "marketing" },
      { at: "2026-11-10T15:00:02Z", category: "utility" },
      { at: "2026-11-10T15:00:03Z", category: "utility", type: "free_customer_service" },
      { at: "2026-11-10T15:00:04Z", category: "service", type: "free_customer_service" },
      { at: "2026-11-10T15:00:05Z", category: "authentication" },
      // Meta's two spellings of the international authentication rate.
      { at: "2026-11-10T15:00:06Z", category: "authentication_international" },
      { at: "2026-11-10T15:00:07Z", category: "referral_conversion", type: "free_entry_point" },
      // A category Meta added, charged: estimated at the marketing rate and counted apart.
      { at: "2026-11-10T15:00:08Z", category: "group_marketing" },
      // No type (a pre-v24 payload): not charged.
      { at: "2026-11-10T15:00:09Z", category: "marketing", type: null },
      // Not priced (yet): not in the ledger at all.
      { at: "2026-11-10T15:00:10Z", priced: false },
      // Priced on `sent`, then failed: Meta charges only delivered messages.
      { at: "2026-11-10T15:00:11Z", category: "marketing", status: "failed" },
    ]);
    const ledger = await report(accountId, "2026-11-10", "2026-11-10", ["category", "type"]);
    const row = (category: string, type: string | null, counts: [number, number, number, number], cost: string) => ({
      category,
      type,
      messages: counts[0],
      charged_messages: counts[1],
      failed_messages: counts[2],
      cost_brl: cost,
      fallback_messages: counts[3],
    });
    // [messages, charged, failed, by the fallback rate]
    expect(ledger.rows).toEqual([
      row("authentication", "regular", [1, 1, 0, 0], "0.0364"),
      row("authentication_international", "regular", [1, 1, 0, 0], "0.0364"),
      row("group_marketing", "regular", [1, 1, 0, 1], "0.3350"),
      row("marketing", null, [1, 0, 0, 0], "0.0000"),
      row("marketing", "regular", [3, 2, 1, 0], "0.6700"),
      row("referral_conversion", "free_entry_point", [1, 0, 0, 0], "0.0000"),
      row("service", "free_customer_service", [1, 0, 0, 0], "0.0000"),
      row("utility", "free_customer_service", [1, 0, 0, 0], "0.0000"),
      row("utility", "regular", [1, 1, 0, 0], "0.0364"),
    ]);
    // 2 × 0.3350 + 3 × 0.0364 + 0.3350 (fallback), summed as integers of R$ 0,0001.
    expect(ledger.totals).toEqual({
      messages: 11,
      charged_messages: 6,
      failed_messages: 1,
      cost_brl: "1.1142",
      fallback_messages: 1,
    });
    expect(ledger.rates.map((rate) => [rate.category, rate.rate_brl, rate.scope])).toEqual([
      ["authentication", "0.0364", "deployment"],
      ["authentication-international", "0.0364", "deployment"],
      ["marketing", "0.3350", "deployment"],
      ["marketing_lite", "0.3350", "deployment"],
      ["service", "0.0364", "deployment"],
      ["utility", "0.0364", "deployment"],
    ]);
  });

  it("counts a send on its São Paulo day: 02:59 UTC is still the day before, 03:00 UTC the next", async () => {
    const accountId = await account();
    await sends(accountId, [
      { at: "2026-11-11T02:59:59.999Z", category: "marketing" },
      { at: "2026-11-11T03:00:00.000Z", category: "utility" },
      { at: "2026-11-12T02:59:59.999Z", category: "utility" },
      { at: "2026-11-12T03:00:00.000Z", category: "marketing" },
    ]);
    const ledger = await report(accountId, "2026-11-10", "2026-11-11", ["day"]);
    expect(ledger.rows.map((row) => [row.day, row.messages, row.cost_brl])).toEqual([
      ["2026-11-10", 1, "0.3350"],
      ["2026-11-11", 2, "0.0728"],
    ]);
    expect(ledger.time_zone).toBe("America/Sao_Paulo");
  });

  it("groups by the dimensions asked, in their order, filters by number and never counts another account", async () => {
    const accountId = await account();
    const other = await account();
    await sends(accountId, [
      { at: "2026-11-13T12:00:00Z", category: "marketing", number: "2000" },
      { at: "2026-11-13T12:00:01Z", category: "utility", number: "2000" },
      { at: "2026-11-13T12:00:02Z", category: "marketing", number: "3000" },
      { at: "2026-11-14T12:00:00Z", category: "marketing", number: "3000" },
    ]);
    await sends(other, [{ at: "2026-11-13T12:00:00Z", category: "marketing", number: "9000" }]);
    const byNumberDay = await report(accountId, "2026-11-13", "2026-11-14", ["number", "day"]);
    expect(byNumberDay.rows.map((row) => Object.keys(row).slice(0, 2))).toEqual([
      ["phone_number_id", "day"],
      ["phone_number_id", "day"],
      ["phone_number_id", "day"],
    ]);
    expect(byNumberDay.rows.map((row) => [row.phone_number_id, row.day, row.messages, row.cost_brl])).toEqual([
      ["2000", "2026-11-13", 2, "0.3714"],
      ["3000", "2026-11-13", 1, "0.3350"],
      ["3000", "2026-11-14", 1, "0.3350"],
    ]);
    expect(byNumberDay.totals).toMatchObject({ messages: 4, cost_brl: "1.0414" });
    const oneNumber = await report(accountId, "2026-11-13", "2026-11-14", ["category"], "2000");
    expect(oneNumber.rows.map((row) => [row.category, row.messages])).toEqual([
      ["marketing", 1],
      ["utility", 1],
    ]);
    expect((await report(accountId, "2026-11-13", "2026-11-13", [])).rows).toEqual([
      { messages: 3, charged_messages: 3, failed_messages: 0, cost_brl: "0.7064", fallback_messages: 0 },
    ]);
  });

  it("prices each day at the rate in force on it: a new rate never re-prices the days before; an account's own rate wins", async () => {
    const accountId = await account();
    const other = await account();
    const days = ["2026-09-30", "2026-10-01", "2026-10-02"];
    for (const id of [accountId, other])
      await sends(
        id,
        days.map((day) => ({ at: `${day}T15:00:00Z`, category: "utility" })),
      );
    const costs = async (id: string) =>
      (await report(id, "2026-09-30", "2026-10-02", ["day"])).rows.map((row) => row.cost_brl);
    expect(await costs(accountId)).toEqual(["0.0364", "0.0364", "0.0364"]);

    await setPricingRate(
      { db: own.db },
      { category: "utility", rateBrl: "0.05", effectiveFrom: "2026-10-01", actor: testActor },
    );
    await setPricingRate(
      { db: own.db },
      { category: "utility", rateBrl: "0.0100", effectiveFrom: "2026-10-02", accountId, actor: testActor },
    );
    expect(await costs(accountId)).toEqual(["0.0364", "0.0500", "0.0100"]);
    expect(await costs(other)).toEqual(["0.0364", "0.0500", "0.0500"]);
    const rates = await listPricingRates({ db: own.db }, { accountId });
    expect(rates.filter((rate) => rate.category === "utility")).toEqual([
      { scope: "deployment", account_id: null, category: "utility", effective_from: "2025-07-01", rate_brl: "0.0364" },
      { scope: "deployment", account_id: null, category: "utility", effective_from: "2026-10-01", rate_brl: "0.0500" },
      {
        scope: "account",
        account_id: accountId,
        category: "utility",
        effective_from: "2026-10-02",
        rate_brl: "0.0100",
      },
    ]);
  });
});

describe("the daily rollup", () => {
  // Each test starts from a rollup that never ran (the state is this database's own).
  beforeEach(async () => {
    await own.db.pricingRollupState.deleteMany();
  });

  it("gives the same ledger as the live aggregation, reads today live, and works once per day", async () => {
    const accountId = await account();
    await sends(accountId, [
      { at: "2026-11-20T12:00:00Z", category: "marketing" },
      { at: "2026-11-20T12:00:01Z", category: "utility", type: "free_customer_service" },
      { at: "2026-11-20T12:00:02Z", category: "marketing", status: "failed" },
      { at: "2026-11-21T02:00:00Z", category: "authentication" },
      { at: "2026-11-21T12:00:00Z", category: "marketing", number: "2000" },
      { at: "2026-11-22T12:00:00Z", category: "marketing" },
    ]);
    const grouping: UsageDimension[] = ["day", "number", "category", "type"];
    const live = await report(accountId, "2026-11-19", "2026-11-22", grouping);
    expect(live.totals).toMatchObject({ messages: 6, charged_messages: 4, failed_messages: 1 });

    // "Today" is 2026-11-22 in São Paulo: the 20th and 21st are closed and rolled, the 22nd stays live.
    const first = await rollupPricingDays({ db: own.db }, { now: new Date("2026-11-22T15:00:00Z") });
    expect(first).toMatchObject({ ran: true, rolledBefore: "2026-11-22" });
    const rolled = await own.db.messagePricingDay.findMany({ where: { accountId } });
    expect(
      rolled.map((row) => [row.day.toISOString().slice(0, 10), row.category, row.messages, row.failed]).sort(),
    ).toEqual(
      [
        ["2026-11-20", "marketing", 2, 1],
        ["2026-11-20", "utility", 1, 0],
        ["2026-11-20", "authentication", 1, 0],
        ["2026-11-21", "marketing", 1, 0],
      ].sort(),
    );
    expect(await report(accountId, "2026-11-19", "2026-11-22", grouping)).toEqual(live);

    // Another run the same day does nothing; a message of a rolled day added now is not seen until the next day's run.
    expect(await rollupPricingDays({ db: own.db }, { now: new Date("2026-11-22T20:00:00Z") })).toMatchObject({
      ran: false,
    });
    await sends(accountId, [{ at: "2026-11-21T13:00:00Z", category: "marketing" }]);
    expect((await report(accountId, "2026-11-21", "2026-11-21", [])).totals.messages).toBe(1);
    await rollupPricingDays({ db: own.db }, { now: new Date("2026-11-23T15:00:00Z") });
    expect((await report(accountId, "2026-11-21", "2026-11-21", [])).totals.messages).toBe(2);
  });

  it("rolls again the 7 closed days before its last run (pricing Meta reports late) and leaves older days as rolled", async () => {
    const accountId = await account();
    const late = "wamid.late-" + randomBytes(4).toString("hex");
    const older = "wamid.older-" + randomBytes(4).toString("hex");
    for (const [wamid, at] of [
      [late, "2026-11-18T12:00:00Z"],
      [older, "2026-11-10T12:00:00Z"],
    ] as const)
      await own.db.message.create({
        data: {
          accountId,
          phoneNumberId: "1000",
          to: "5511999990000",
          wamid,
          kind: "template",
          status: "sent",
          createdAt: new Date(at),
        },
      });
    // The first run rolls both days (neither priced yet).
    await rollupPricingDays({ db: own.db }, { now: new Date("2026-11-23T15:00:00Z") });
    // Both priced only now, as a `delivered` status days after the send would.
    for (const wamid of [late, older])
      await own.db.message.update({
        where: { wamid },
        data: { pricing: { pricing_model: "PMP", category: "marketing", type: "regular" } },
      });
    await rollupPricingDays({ db: own.db }, { now: new Date("2026-11-24T15:00:00Z") });
    // The 18th is within the 7 days before the last run (the 23rd): rolled again. The 10th is not: as first rolled.
    const ledger = await report(accountId, "2026-11-01", "2026-11-23", ["day"]);
    expect(ledger.rows.map((row) => [row.day, row.messages])).toEqual([["2026-11-18", 1]]);
    expect(await own.db.message.count({ where: { accountId, pricing: { not: Prisma.DbNull } } })).toBe(2);
  });
});
