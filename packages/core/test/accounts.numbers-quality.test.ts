// The panel's Números page: the account's business numbers with Meta's quality rating and messaging tier, read
// through the adapter from the provider sandbox; a number Meta cannot be asked about shows as UNKNOWN.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { createDb, type Db } from "@gw/db";
import { createMetaClient, type MetaClient } from "@gw/meta";
import { startSandbox, type RunningSandbox } from "@gw/provider-sandbox";
import { silentLogger, testEnv } from "@gw/testkit";
import { listBusinessNumbersWithQuality } from "../src/accounts/index.ts";
import { control, createPanelAccount } from "./sandbox-ingest.ts";

const TOKEN = "EAAG-numbers-quality-token";
let db: Db;
let sandbox: RunningSandbox;
let meta: MetaClient;
let a: Awaited<ReturnType<typeof createPanelAccount>>;
let b: Awaited<ReturnType<typeof createPanelAccount>>;

beforeAll(async () => {
  db = createDb({ url: testEnv().databaseUrl, poolSize: 4 });
  sandbox = await startSandbox({
    appSecret: "app-secret",
    accessToken: TOKEN,
    autoStatuses: false,
    logger: silentLogger,
  });
  meta = createMetaClient({ baseUrl: sandbox.url, apiVersion: "v23.0", accessToken: TOKEN, timeoutMs: 5_000 });
  a = await createPanelAccount(db, { numbers: 2, users: 0 });
  b = await createPanelAccount(db, { numbers: 1, users: 0 });
});

beforeEach(async () => {
  await control(sandbox, "/reset", { config: true });
  const [first, second] = a.phoneNumberIds as [string, string];
  await control(sandbox, "/numbers", {
    phone_number_id: first,
    verified_name: "Loja A",
    quality_rating: "YELLOW",
    messaging_limit_tier: "TIER_10K",
    throughput_level: "HIGH",
  });
  await control(sandbox, "/numbers", {
    phone_number_id: second,
    quality_rating: "RED",
    messaging_limit_tier: "TIER_250",
  });
});

afterAll(async () => {
  await sandbox.close();
  await db.$disconnect();
});

describe("listBusinessNumbersWithQuality", () => {
  it("lists the account's numbers, default first, with Meta's quality rating, tier and throughput", async () => {
    const numbers = await listBusinessNumbersWithQuality({ db, meta }, { accountId: a.accountId });
    expect(numbers).toEqual([
      {
        phone_number_id: a.phoneNumberIds[0],
        waba_id: a.wabaId,
        display_number: "+55 11 4000-0000",
        is_default: true,
        messaging_rate_per_second: 80,
        created_at: expect.any(String),
        meta_display_phone_number: expect.stringMatching(/^\+/),
        verified_name: "Loja A",
        quality_rating: "YELLOW",
        messaging_limit_tier: "TIER_10K",
        throughput_level: "HIGH",
        error: null,
        // No phone_number_quality_update webhook came for it yet.
        reported: { quality: null, messaging_limit: null, throughput: null, event: null, at: null },
      },
      expect.objectContaining({
        phone_number_id: a.phoneNumberIds[1],
        is_default: false,
        quality_rating: "RED",
        messaging_limit_tier: "TIER_250",
        throughput_level: "STANDARD",
        error: null,
      }),
    ]);
  });

  it("shows a number Meta could not be asked about as UNKNOWN, and still the others", async () => {
    // One call fails (whichever of the two is first); the other is answered.
    await control(sandbox, "/faults", { mode: "500", route: "numbers", count: 1 });
    const numbers = await listBusinessNumbersWithQuality(
      { db, meta, logger: silentLogger },
      { accountId: a.accountId },
    );
    expect(numbers).toHaveLength(2);
    const failed = numbers.filter((n) => n.error !== null);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      quality_rating: "UNKNOWN",
      messaging_limit_tier: null,
      throughput_level: null,
      verified_name: null,
      error: expect.stringMatching(/Não foi possível consultar a Meta/),
    });
    const answered = numbers.find((n) => n.error === null);
    expect(["YELLOW", "RED"]).toContain(answered?.quality_rating);
  });

  it("shows every number as UNKNOWN when the provider cannot be reached at all", async () => {
    const unreachable = createMetaClient({
      baseUrl: "http://127.0.0.1:9",
      apiVersion: "v23.0",
      accessToken: TOKEN,
      timeoutMs: 2_000,
    });
    const numbers = await listBusinessNumbersWithQuality({ db, meta: unreachable }, { accountId: a.accountId });
    expect(numbers.map((n) => [n.phone_number_id, n.quality_rating])).toEqual([
      [a.phoneNumberIds[0], "UNKNOWN"],
      [a.phoneNumberIds[1], "UNKNOWN"],
    ]);
  });

  it("lists only the account's own numbers, and nothing for an id that is no account", async () => {
    const numbers = await listBusinessNumbersWithQuality({ db, meta }, { accountId: b.accountId });
    expect(numbers.map((n) => n.phone_number_id)).toEqual(b.phoneNumberIds);
    expect(numbers[0]).toMatchObject({ quality_rating: "GREEN", messaging_limit_tier: "TIER_1K" });
    expect(await listBusinessNumbersWithQuality({ db, meta }, { accountId: "não-é-uuid" })).toEqual([]);
  });
});
