import { describe, expect, it } from "@jest/globals";
import { isolatedDatabase } from "@gw/testkit";
import { purgeExpiredIdempotencyKeys } from "../src/retention/index.ts";
import { databaseOfItsOwn } from "./support/own-database.ts";

const own = databaseOfItsOwn(() => isolatedDatabase());

describe("purgeExpiredIdempotencyKeys", () => {
  it("deletes every expired key, in batches, and keeps the live ones", async () => {
    const account = await own.db.account.create({ data: { name: "Conta purga" } });
    const now = new Date("2026-11-23T12:00:00Z");
    const at = (hours: number) => new Date(now.getTime() + hours * 3_600_000);
    const row = (key: string, expiresAt: Date) => ({
      accountId: account.id,
      key,
      fingerprint: "f",
      state: "completed",
      expiresAt,
    });
    await own.db.idempotencyKey.createMany({
      data: [
        row("velha-1", at(-30)),
        row("velha-2", at(-2)),
        row("velha-3", at(-1)),
        row("velha-4", at(-0.01)),
        row("viva-1", at(1)),
        row("viva-2", at(47)),
      ],
    });

    // Batch of 3 with 4 expired: two rounds, the second one partial.
    expect(await purgeExpiredIdempotencyKeys({ db: own.db }, { now, batchSize: 3 })).toBe(4);
    const left = await own.db.idempotencyKey.findMany({ where: { accountId: account.id }, orderBy: { key: "asc" } });
    expect(left.map((k) => k.key)).toEqual(["viva-1", "viva-2"]);
    expect(await purgeExpiredIdempotencyKeys({ db: own.db }, { now, batchSize: 3 })).toBe(0);
  });
});
