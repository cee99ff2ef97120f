import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import type { NumberStats, RunningSandbox, SentMessage } from "../src/index.ts";
import { control, PHONE_ID, sendMessage, start, template, type Answer } from "./helpers.ts";

// The sandbox's throughput limits, driven by a clock the test moves: a number's own messaging rate (130429 over
// it) and Meta's pair rate (131056 for too many messages from one number to one contact within a window).
const TO = "5511988887777";
const OTHER_NUMBER = "106540352249999";

describe("per-number messaging rate and pair rate", () => {
  let sandbox: RunningSandbox;
  let base: string;
  let clock = Date.parse("2026-11-20T12:00:00Z");

  beforeAll(async () => {
    sandbox = await start({ now: () => clock, rateLimitPerSecond: 5 });
    base = sandbox.url;
  });
  beforeEach(async () => {
    await control(base, "/reset", { config: true });
    clock = Date.parse("2026-11-20T12:00:00Z");
  });
  afterAll(() => sandbox.close());

  const hello = (to = TO, phoneId = PHONE_ID): Promise<Answer> =>
    sendMessage(base, template(to, "hello_world", [], "en_US"), { phoneId });

  async function statuses(count: number, send: () => Promise<Answer>): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < count; i++) out.push((await send()).status);
    return out;
  }

  it("a number's own rate replaces the default for that number only, and null gives it back the default", async () => {
    const config = await control<{ numberRates: Record<string, number> }>(base, "/config", {
      numberRates: { [PHONE_ID]: 2 },
    });
    expect(config.body.numberRates).toEqual({ [PHONE_ID]: 2 });
    expect(await statuses(3, () => hello())).toEqual([200, 200, 400]);
    // The other number keeps the default of 5 a second.
    expect(await statuses(6, () => hello(TO, OTHER_NUMBER))).toEqual([200, 200, 200, 200, 200, 400]);

    const refused = await hello();
    expect(refused.body.error).toMatchObject({
      message: "(#130429) Rate limit hit",
      code: 130429,
      error_subcode: 2494055,
      error_data: { messaging_product: "whatsapp", details: "Cloud API message throughput has been reached." },
    });
    // A second later the window slid past the earlier sends.
    clock += 1000;
    expect(await statuses(3, () => hello())).toEqual([200, 200, 400]);

    await control(base, "/config", { numberRates: { [PHONE_ID]: null } });
    clock += 1000;
    expect(await statuses(6, () => hello())).toEqual([200, 200, 200, 200, 200, 400]);
  });

  it("a number's own rate also applies with no default, and the sliding window counts only the last second", async () => {
    await control(base, "/config", { rateLimitPerSecond: null, numberRates: { [PHONE_ID]: 3 } });
    expect(await statuses(2, () => hello())).toEqual([200, 200]);
    clock += 600;
    // Two sends 600 ms ago and one now: the fourth within the second is refused.
    expect(await statuses(2, () => hello())).toEqual([200, 400]);
    clock += 400;
    // The first two left the window: two more fit.
    expect(await statuses(3, () => hello())).toEqual([200, 200, 400]);
    // Without a limit of its own or a default, another number is never refused.
    expect(await statuses(20, () => hello(TO, OTHER_NUMBER))).toEqual(Array<number>(20).fill(200));
  });

  it("the pair rate is off by default", async () => {
    await control(base, "/config", { rateLimitPerSecond: null });
    expect(await statuses(10, () => hello())).toEqual(Array<number>(10).fill(200));
  });

  it("131056 once one contact got `max` messages from one number within the window; others and other numbers go", async () => {
    await control(base, "/config", { rateLimitPerSecond: null, pairRate: { max: 2, windowMs: 6000 } });
    expect(await statuses(2, () => hello())).toEqual([200, 200]);
    const refused = await hello();
    expect(refused.status).toBe(400);
    expect(refused.body.error).toEqual({
      message: "(#131056) (Business Account, Consumer Account) pair rate limit hit",
      type: "OAuthException",
      code: 131056,
      error_data: {
        messaging_product: "whatsapp",
        details:
          "Too many messages sent from the sender phone number to the same recipient phone number in a short period of time.",
      },
      fbtrace_id: expect.stringMatching(/^[A-Za-z0-9_-]{23}$/),
    });
    // The 12-digit WhatsApp id of an older Brazilian account is the same contact.
    expect((await hello("551188887777")).body.error?.code).toBe(131056);
    expect((await hello("5511977776666")).status).toBe(200);
    expect((await hello(TO, OTHER_NUMBER)).status).toBe(200);

    clock += 5999;
    expect((await hello()).body.error?.code).toBe(131056);
    clock += 1;
    expect((await hello()).status).toBe(200);
    // A refused send is not counted: after the window slid again, two more go.
    clock += 6000;
    expect(await statuses(3, () => hello())).toEqual([200, 200, 400]);

    await control(base, "/config", { pairRate: null });
    expect(await statuses(5, () => hello())).toEqual(Array<number>(5).fill(200));
  });

  it("checks the number's rate before the pair rate, and counts refusals per code in the stats", async () => {
    await control(base, "/config", { numberRates: { [PHONE_ID]: 3 }, pairRate: { max: 1, windowMs: 60_000 } });
    expect(await statuses(2, () => hello())).toEqual([200, 400]);
    expect((await hello("5511977776666")).status).toBe(200);
    expect((await hello("5511977775555")).status).toBe(200);
    // Three accepted this second (the one refused by the pair rate is not counted): the number is at its rate.
    expect((await hello("5511977774444")).body.error?.code).toBe(130429);
    const stats = await control<{ window_ms: number; numbers: NumberStats[] }>(
      base,
      `/sent/stats?phone_number_id=${PHONE_ID}`,
    );
    expect(stats.body).toEqual({
      window_ms: 1000,
      numbers: [
        {
          phone_number_id: PHONE_ID,
          sent: 3,
          first_at_ms: clock,
          last_at_ms: clock,
          max_in_window: 3,
          repeated_contacts: 0,
          refused: { "130429": 1, "131056": 1 },
        },
      ],
    });
  });

  it("records each accepted send with at_ms, and the stats give the busiest window and repeated contacts", async () => {
    await control(base, "/config", { rateLimitPerSecond: null });
    const start = clock;
    // 3 sends at t, 2 at t+999 (same one-second window: 5), 1 at t+1500; TO gets two of them.
    for (const [offset, to] of [
      [0, TO],
      [0, "5511900000001"],
      [0, "5511900000002"],
      [999, "5511900000003"],
      [999, "551188887777"],
      [1500, "5511900000004"],
    ] as const) {
      clock = start + offset;
      expect((await hello(to)).status).toBe(200);
    }
    const sent = (await control<SentMessage[]>(base, "/sent")).body;
    expect(sent.map((s) => s.at_ms - start)).toEqual([0, 0, 0, 999, 999, 1500]);
    for (const s of sent) expect(Date.parse(s.at)).toBe(s.at_ms);

    const stats = async (query: string) =>
      (await control<{ window_ms: number; numbers: NumberStats[] }>(base, `/sent/stats${query}`)).body;
    expect((await stats("")).numbers).toEqual([
      {
        phone_number_id: PHONE_ID,
        sent: 6,
        first_at_ms: start,
        last_at_ms: start + 1500,
        max_in_window: 5,
        repeated_contacts: 1,
        refused: {},
      },
    ]);
    expect((await stats("?window_ms=999")).numbers[0]?.max_in_window).toBe(3);
    expect((await stats("?window_ms=2000")).numbers[0]?.max_in_window).toBe(6);
    expect((await stats(`?phone_number_id=${OTHER_NUMBER}`)).numbers).toEqual([
      {
        phone_number_id: OTHER_NUMBER,
        sent: 0,
        first_at_ms: null,
        last_at_ms: null,
        max_in_window: 0,
        repeated_contacts: 0,
        refused: {},
      },
    ]);
    expect((await control(base, "/sent/stats?window_ms=0")).status).toBe(400);
  });

  it("refuses malformed rate settings without changing anything", async () => {
    for (const body of [
      { numberRates: { [PHONE_ID]: 0 } },
      { numberRates: { "not-a-number": 5 } },
      { pairRate: { max: 0, windowMs: 1000 } },
      { pairRate: { max: 1 } },
    ]) {
      expect((await control(base, "/config", body)).status).toBe(400);
    }
    const config = await control<{ numberRates: unknown; pairRate?: unknown }>(base, "/config");
    expect(config.body.numberRates).toEqual({});
    expect(config.body.pairRate).toBeUndefined();
  });

  it("reset {config: true} restores the rates the sandbox started with", async () => {
    const custom = await start({ numberRates: { [PHONE_ID]: 1 }, pairRate: { max: 3, windowMs: 1000 } });
    try {
      await control(custom.url, "/config", { numberRates: { [PHONE_ID]: null, [OTHER_NUMBER]: 7 }, pairRate: null });
      await control(custom.url, "/reset", { config: true });
      const config = await control<{ numberRates: unknown; pairRate: unknown }>(custom.url, "/config");
      expect(config.body).toMatchObject({ numberRates: { [PHONE_ID]: 1 }, pairRate: { max: 3, windowMs: 1000 } });
    } finally {
      await custom.close();
    }
  });
});
