import { describe, expect, it } from "@jest/globals";
import { isolatedDatabase, testActor } from "@gw/testkit";
import { createAccount } from "../src/accounts/index.ts";
import {
  PricingRateError,
  addDays,
  brlUnits,
  daysInRange,
  formatBrlUnits,
  isCalendarDay,
  listPricingRates,
  priceMessages,
  rateCardOf,
  removePricingRate,
  saoPauloDay,
  setPricingRate,
} from "../src/pricing/index.ts";
import { databaseOfItsOwn } from "./support/own-database.ts";

// The rate card: money as integers of R$ 0,0001, São Paulo days, which rate prices a message, and the operator's
// changes (validated, audited, removable). A database of its own: the deployment's card is global.

describe("money and days", () => {
  it("reads reais with up to four decimals into integer units and writes them back exactly", () => {
    expect(brlUnits("0.335")).toBe(3350);
    expect(brlUnits("0.0068")).toBe(68);
    expect(brlUnits("12")).toBe(120_000);
    for (const bad of ["0,335", "-1", "0.12345", "1e3", "", "abc"]) expect([bad, brlUnits(bad)]).toEqual([bad, null]);
    expect(formatBrlUnits(3350)).toBe("0.3350");
    expect(formatBrlUnits(1_234_567_891)).toBe("123456.7891");
    // 0.1 + 0.2 in floats is 0.30000000000000004; in units it is 3000.
    expect(formatBrlUnits(brlUnits("0.1")! + brlUnits("0.2")!)).toBe("0.3000");
  });

  it("knows São Paulo's calendar day and real dates", () => {
    expect(saoPauloDay(new Date("2026-11-28T02:59:59Z"))).toBe("2026-11-27");
    expect(saoPauloDay(new Date("2026-11-28T03:00:00Z"))).toBe("2026-11-28");
    expect(isCalendarDay("2028-02-29")).toBe(true);
    expect(isCalendarDay("2026-02-29")).toBe(false);
    expect(isCalendarDay("2026-1-01")).toBe(false);
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(daysInRange("2026-01-01", "2026-12-31")).toBe(365);
    expect(daysInRange("2026-01-02", "2026-01-01")).toBe(0);
  });
});

describe("which rate prices a message", () => {
  const card = rateCardOf([
    { category: "marketing", effectiveFrom: "2026-01-01", units: 3000, scope: "deployment" },
    { category: "marketing", effectiveFrom: "2026-10-01", units: 3350, scope: "deployment" },
    { category: "utility", effectiveFrom: "2026-01-01", units: 364, scope: "deployment" },
    { category: "utility", effectiveFrom: "2026-11-01", units: 100, scope: "account" },
  ]);
  const price = (day: string, category: string | null, type: string | null = "regular", messages = 1) =>
    priceMessages(card, { day, category, type, messages });

  it("uses the latest rate in force on the day, the account's over the deployment's", () => {
    expect(price("2026-09-30", "marketing").costUnits).toBe(3000);
    expect(price("2026-10-01", "marketing").costUnits).toBe(3350);
    expect(price("2026-10-31", "utility").costUnits).toBe(364);
    expect(price("2026-11-01", "utility").costUnits).toBe(100);
  });

  it("charges nothing but regular, and estimates an unrated category at the marketing rate, flagged", () => {
    expect(price("2026-11-01", "marketing", "free_customer_service", 5)).toEqual({
      messages: 5,
      charged: 0,
      failed: 0,
      costUnits: 0,
      fallback: 0,
    });
    expect(price("2026-11-01", "group_utility", "regular", 2)).toEqual({
      messages: 2,
      charged: 2,
      failed: 0,
      costUnits: 6700,
      fallback: 2,
    });
    expect(price("2026-11-01", null, "regular")).toMatchObject({ costUnits: 3350, fallback: 1 });
    // No rate at all on that day (before the card): charged, flagged, priced 0.
    expect(price("2025-01-01", "utility")).toEqual({ messages: 1, charged: 1, failed: 0, costUnits: 0, fallback: 1 });
  });

  it("never charges a message that failed after Meta priced it", () => {
    expect(
      priceMessages(card, { day: "2026-11-01", category: "marketing", type: "regular", messages: 5, failed: 2 }),
    ).toEqual({
      messages: 5,
      charged: 3,
      failed: 2,
      costUnits: 3 * 3350,
      fallback: 0,
    });
  });
});

describe("the operator's rate changes", () => {
  const own = databaseOfItsOwn(() => isolatedDatabase());

  it("ships Meta's Brazil card converted to BRL as the default, from the start of per-message pricing", async () => {
    expect(await listPricingRates({ db: own.db }, {})).toEqual(
      [
        ["authentication", "0.0364"],
        ["authentication-international", "0.0364"],
        ["marketing", "0.3350"],
        ["marketing_lite", "0.3350"],
        ["service", "0.0364"],
        ["utility", "0.0364"],
      ].map(([category, rate]) => ({
        scope: "deployment",
        account_id: null,
        category,
        effective_from: "2025-07-01",
        rate_brl: rate,
      })),
    );
  });

  it("sets a rate (the same day again replaces it), audits each change, and removes one", async () => {
    const cli = { id: "cli:ana", origin: "cli" as const };
    const first = await setPricingRate(
      { db: own.db },
      { category: "authentication_international", rateBrl: "0.15", effectiveFrom: "2027-01-01", actor: cli },
    );
    expect(first).toEqual({
      scope: "deployment",
      account_id: null,
      category: "authentication-international",
      effective_from: "2027-01-01",
      rate_brl: "0.1500",
      previous_rate_brl: null,
    });
    const again = await setPricingRate(
      { db: own.db },
      { category: "authentication-international", rateBrl: "0.1512", effectiveFrom: "2027-01-01", actor: cli },
    );
    expect(again).toMatchObject({ rate_brl: "0.1512", previous_rate_brl: "0.1500" });
    expect(
      await removePricingRate(
        { db: own.db },
        { category: "authentication-international", effectiveFrom: "2027-01-01", actor: cli },
      ),
    ).toMatchObject({ rate_brl: "0.1512" });
    expect(
      await removePricingRate(
        { db: own.db },
        { category: "authentication-international", effectiveFrom: "2027-01-01", actor: cli },
      ),
    ).toBeNull();
    const audit = await own.db.auditEntry.findMany({ where: { actor: "cli:ana" }, orderBy: { id: "asc" } });
    expect(audit.map((entry) => [entry.action, entry.accountId, entry.target, entry.details])).toEqual([
      [
        "cli.pricing_rate.set",
        null,
        "pricing_rate:authentication-international:2027-01-01",
        { scope: "deployment", rate_brl: "0.1500", previous_rate_brl: null },
      ],
      [
        "cli.pricing_rate.set",
        null,
        "pricing_rate:authentication-international:2027-01-01",
        { scope: "deployment", rate_brl: "0.1512", previous_rate_brl: "0.1500" },
      ],
      [
        "cli.pricing_rate.removed",
        null,
        "pricing_rate:authentication-international:2027-01-01",
        { scope: "deployment", rate_brl: "0.1512" },
      ],
    ]);
  });

  it("audits an account's own rate under that account", async () => {
    const { id: accountId } = await createAccount({ db: own.db }, { name: "Padaria", actor: testActor });
    await setPricingRate(
      { db: own.db },
      { category: "marketing", rateBrl: "0.30", effectiveFrom: "2027-01-01", accountId, actor: testActor },
    );
    const entry = await own.db.auditEntry.findFirst({ where: { accountId, action: "system.pricing_rate.set" } });
    expect(entry?.details).toEqual({ scope: "account", rate_brl: "0.3000", previous_rate_brl: null });
  });

  it("refuses a category Meta would not send, a rate that is not reais with four decimals, a day that does not exist, an unknown account", async () => {
    const attempts = [
      { category: "Marketing", rateBrl: "0.3", effectiveFrom: "2027-01-01" },
      { category: "marketing", rateBrl: "0,30", effectiveFrom: "2027-01-01" },
      { category: "marketing", rateBrl: "0.30001", effectiveFrom: "2027-01-01" },
      { category: "marketing", rateBrl: "0.3", effectiveFrom: "2027-02-30" },
      {
        category: "marketing",
        rateBrl: "0.3",
        effectiveFrom: "2027-01-01",
        accountId: "00000000-0000-4000-8000-000000000000",
      },
    ];
    for (const attempt of attempts) {
      const error = await setPricingRate({ db: own.db }, { ...attempt, actor: testActor }).catch((e: unknown) => e);
      expect([attempt, error instanceof PricingRateError]).toEqual([attempt, true]);
    }
    expect(await own.db.pricingRate.count({ where: { effectiveFrom: new Date("2027-01-01T00:00:00Z") } })).toBe(0);
  });
});
