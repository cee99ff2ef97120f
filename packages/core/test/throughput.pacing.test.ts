import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ApiError } from "@gw/errors";
import { createRedis, type Redis } from "@gw/jobs";
import { MetaApiError } from "@gw/meta";
import { silentLogger, testEnv } from "@gw/testkit";
import {
  createNumberThroughput,
  noteProviderRefusal,
  takeSendTurn,
  type NumberThroughput,
  type ThroughputPolicy,
} from "../src/throughput/index.ts";

// The per-number pacing against the real Redis: the Lua script's turns, its exact refusals, the back-off after
// 130429 and its recovery, the spacing of a recipient after 131056, and that two pods (two connections) share it.

let redisA: Redis;
let redisB: Redis;
let prefix: string;
let numberSeq = 0;

beforeAll(() => {
  const env = testEnv();
  prefix = env.redisPrefix;
  redisA = createRedis(env.redisUrl);
  redisB = createRedis(env.redisUrl);
});

afterAll(async () => {
  const keys = await redisA.keys(`${prefix}:*`);
  if (keys.length > 0) await redisA.del(...keys);
  redisA.disconnect();
  redisB.disconnect();
});

/** A fresh number id per test, so the tests never share a bucket. */
const nextNumber = () => `1555000${String(++numberSeq).padStart(4, "0")}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function throughput(redis: Redis, policy: Partial<ThroughputPolicy> = {}): NumberThroughput {
  // No headroom here: the spacing asserted is exactly 1/rate.
  return createNumberThroughput({ redis, keyPrefix: prefix, policy: { headroom: 0, ...policy } });
}

describe("per-number turns (GCRA in one Lua script)", () => {
  it("spaces turns 1/rate apart and refuses one beyond the queue with the exact wait", async () => {
    const tp = throughput(redisA);
    const number = nextNumber();
    const take = () => tp.take({ phoneNumberId: number, ratePerSecond: 2, to: "5511900000001", maxQueueMs: 1_000 });
    // Each wait is counted from the moment its call is served: a wait is its turn's distance from the first turn
    // less the time spent since the first call (at most `elapsed()`, which a loaded machine stretches).
    const started = Date.now();
    const elapsed = () => Date.now() - started;
    const waits: number[] = [];
    const spent: number[] = [];
    for (let n = 0; n < 3; n++) {
      const turn = await take();
      waits.push(turn.granted ? turn.waitMs : -1);
      spent.push(elapsed());
    }
    // 2/s: turns at +0, +500 ms and +1000 ms (the last one exactly at the edge of the 1 s queue).
    expect(waits[0]).toBe(0);
    expect(waits[1]).toBeGreaterThanOrEqual(500 - (spent[1] ?? 0) - 2);
    expect(waits[1]).toBeLessThanOrEqual(500);
    expect(waits[2]).toBeGreaterThanOrEqual(1_000 - (spent[2] ?? 0) - 2);
    expect(waits[2]).toBeLessThanOrEqual(1_000);

    const refused = await take();
    const refusedAt = elapsed();
    expect(refused.granted).toBe(false);
    if (refused.granted) return;
    expect(refused.reason).toBe("number");
    // The next free turn is 1500 ms ahead; a turn at most 1000 ms ahead is allowed: wait 500 ms (minus time spent).
    expect(refused.retryAfterMs).toBeGreaterThanOrEqual(500 - refusedAt - 2);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(500);

    // Just before that the turn is still refused (nothing was taken by the refusal); after it, granted.
    const early = await take();
    expect(early.granted).toBe(false);
    await sleep(refused.retryAfterMs + 20);
    expect((await take()).granted).toBe(true);
  });

  it("is one bucket for every pod: two connections taking turns alternately queue behind each other", async () => {
    const number = nextNumber();
    const pods = [throughput(redisA), throughput(redisB)];
    const waits: number[] = [];
    /** When each turn falls, on this process's clock: when it was granted plus its wait. */
    const turnsAt: number[] = [];
    for (let i = 0; i < 10; i++) {
      const pod = pods[i % 2] as NumberThroughput;
      const turn = await pod.take({ phoneNumberId: number, ratePerSecond: 10, to: "5511900000002", maxQueueMs: 5_000 });
      waits.push(turn.granted ? turn.waitMs : -1);
      turnsAt.push(Date.now() + (turn.granted ? turn.waitMs : 0));
    }
    // 10/s from both pods together: the tenth turn falls about 900 ms after the first, not 400 ms (as two separate
    // buckets would say). Measured between the turns, not from the tenth call: on a loaded machine the ten calls
    // themselves take a part of those 900 ms, and the last wait is shorter by as much.
    expect(waits.every((w) => w >= 0)).toBe(true);
    expect((turnsAt[9] ?? 0) - (turnsAt[0] ?? 0)).toBeGreaterThan(800);
    for (let i = 1; i < turnsAt.length; i++) expect(turnsAt[i]).toBeGreaterThan(turnsAt[i - 1] ?? 0);
  });

  it("public-API pacing refuses with 429 rate_limited and Retry-After in whole seconds, campaign pacing waits", async () => {
    const tp = throughput(redisA, { apiMaxQueueMs: 0, campaignMaxQueueMs: 0, campaignMaxWaitMs: 5_000 });
    const number = nextNumber();
    const turn = { phoneNumberId: number, ratePerSecond: 4, to: "5511900000003" };
    const firstTurnAt = Date.now();
    await takeSendTurn({ throughput: tp, logger: silentLogger }, { ...turn, pacing: "refuse" });
    const refusal = await takeSendTurn({ throughput: tp, logger: silentLogger }, { ...turn, pacing: "refuse" }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ code: "rate_limited", status: 429, retryAfterSeconds: 1 });
    expect((refusal as ApiError).message).toMatch(/^O número comercial atingiu a sua vazão/);

    // A campaign send does not fail: it waits for the next turn, 250 ms after the first at 4/s (counted from the
    // first turn, not from this call: on a loaded machine the refusal above may take much of those 250 ms).
    await takeSendTurn({ throughput: tp, logger: silentLogger }, { ...turn, pacing: "wait" });
    expect(Date.now() - firstTurnAt).toBeGreaterThanOrEqual(200);
  });
});

describe("Meta's throughput refusals", () => {
  it("130429 halves the number's rate once per second and pauses it; each quiet cooldown gives back a quarter", async () => {
    const tp = throughput(redisA, { cooldownMs: 400, throttlePauseMs: 300 });
    const number = nextNumber();
    const throttled = new MetaApiError({ httpStatus: 400, code: 130429, message: "Rate limit hit" });
    await noteProviderRefusal(
      { throughput: tp, logger: silentLogger },
      { phoneNumberId: number, to: "5511900000004", error: throttled },
    );
    // Many sends of the same second hear the same 130429: one back-off, not one per send.
    await noteProviderRefusal(
      { throughput: tp, logger: silentLogger },
      { phoneNumberId: number, to: "5511900000005", error: throttled },
    );
    expect((await tp.state(number)).factor).toBe(0.5);
    // The pause: nothing goes out right after the 130429.
    const during = await tp.take({ phoneNumberId: number, ratePerSecond: 10, to: "5511900000004", maxQueueMs: 0 });
    expect(during.granted).toBe(false);

    // Recovery is stepwise: 0.5, then 0.75 after one quiet cooldown, then 1.
    await sleep(450);
    expect((await tp.state(number)).factor).toBe(0.75);
    await sleep(400);
    expect((await tp.state(number)).factor).toBe(1);
  });

  it("a 130429 while backing off halves again, down to the floor", async () => {
    const tp = throughput(redisA, { cooldownMs: 60_000, minFactor: 0.125 });
    const number = nextNumber();
    const factors: number[] = [];
    for (let i = 0; i < 5; i++) {
      factors.push(await tp.noteThrottled(number));
      // Meta's window is one second: a 130429 in the next second is a new one.
      await redisA.hset(`${prefix}:tp:{${number}}`, "c", String(Date.now() - 2_000));
    }
    expect(factors).toEqual([0.5, 0.25, 0.125, 0.125, 0.125]);
  });

  it("131056 spaces that recipient out (refused with its own sentence) while others go on", async () => {
    const tp = throughput(redisA, { pairSpacingMs: 800 });
    const number = nextNumber();
    const pairLimited = new MetaApiError({ httpStatus: 400, code: 131056, message: "pair rate limit hit" });
    await noteProviderRefusal(
      { throughput: tp, logger: silentLogger },
      { phoneNumberId: number, to: "5511900000006", error: pairLimited },
    );
    const same = await tp.take({ phoneNumberId: number, ratePerSecond: 80, to: "5511900000006", maxQueueMs: 1_000 });
    expect(same).toMatchObject({ granted: false, reason: "recipient" });
    if (!same.granted) expect(same.retryAfterMs).toBeLessThanOrEqual(800);
    const other = await tp.take({ phoneNumberId: number, ratePerSecond: 80, to: "5511900000007", maxQueueMs: 1_000 });
    expect(other.granted).toBe(true);

    // Even a campaign send does not wait that long in its slot: it is refused, and the campaign spaces the recipient.
    const refusal = await takeSendTurn(
      { throughput: tp, logger: silentLogger },
      { phoneNumberId: number, ratePerSecond: 80, to: "5511900000006", pacing: "wait" },
    ).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refusal).toMatchObject({ code: "rate_limited", retryAfterSeconds: 1 });
    expect((refusal as ApiError).message).toMatch(/^Este destinatário recebeu mensagens demais/);
    await sleep(850);
    expect(
      (await tp.take({ phoneNumberId: number, ratePerSecond: 80, to: "5511900000006", maxQueueMs: 1_000 })).granted,
    ).toBe(true);
  });
});
