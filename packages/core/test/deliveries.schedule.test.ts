import { describe, expect, it } from "@jest/globals";
import { attemptBudget, nextDelayMs } from "../src/deliveries/index.ts";

const SPEC_SCHEDULE = [30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000];

/** Deterministic uniform numbers in [0, 1) (mulberry32), so the test is reproducible. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("retry schedule (spec 6.5)", () => {
  it("gives seven automatic attempts with the spec's six waits, about 31 hours in total", () => {
    expect(attemptBudget(SPEC_SCHEDULE)).toBe(7);
    const nominal = [1, 2, 3, 4, 5, 6].map((n) => nextDelayMs(n, SPEC_SCHEDULE, 0));
    expect(nominal).toEqual(SPEC_SCHEDULE);
    const hours = nominal.reduce<number>((sum, ms) => sum + (ms ?? 0), 0) / 3_600_000;
    expect(hours).toBeGreaterThan(31);
    expect(hours).toBeLessThan(32);
  });

  it("returns null once the budget is spent", () => {
    expect(nextDelayMs(7, SPEC_SCHEDULE, 0.2)).toBeNull();
    expect(nextDelayMs(1, [], 0.2)).toBeNull();
    expect(() => nextDelayMs(0, SPEC_SCHEDULE, 0.2)).toThrow(RangeError);
  });

  it("maps the extremes of the random source to exactly -20 % and (almost) +20 %", () => {
    expect(nextDelayMs(1, SPEC_SCHEDULE, 0.2, () => 0)).toBe(24_000);
    expect(nextDelayMs(1, SPEC_SCHEDULE, 0.2, () => 0.5)).toBe(30_000);
    expect(nextDelayMs(1, SPEC_SCHEDULE, 0.2, () => 0.999_999_9)).toBe(36_000);
    expect(nextDelayMs(6, SPEC_SCHEDULE, 0.2, () => 0)).toBe(69_120_000);
  });

  it("stays within ±20 % and spreads over both sides of the nominal wait", () => {
    const random = seeded(42);
    for (let attempt = 1; attempt <= 6; attempt++) {
      const base = SPEC_SCHEDULE[attempt - 1] ?? 0;
      const samples = Array.from(
        { length: 2_000 },
        () => nextDelayMs(attempt, SPEC_SCHEDULE, 0.2, random) ?? Number.NaN,
      );
      const min = Math.min(...samples);
      const max = Math.max(...samples);
      expect(min).toBeGreaterThanOrEqual(base * 0.8);
      expect(max).toBeLessThanOrEqual(base * 1.2);
      // Both tails are reached: with 2 000 uniform draws the extremes land within 1 % of the bounds.
      expect(min).toBeLessThan(base * 0.81);
      expect(max).toBeGreaterThan(base * 1.19);
      const below = samples.filter((s) => s < base).length;
      expect(below).toBeGreaterThan(800);
      expect(below).toBeLessThan(1_200);
    }
  });

  it("keeps the schedule's shape under jitter: each wait exceeds the previous one", () => {
    const random = seeded(7);
    for (let round = 0; round < 200; round++) {
      const waits = [1, 2, 3, 4, 5, 6].map((n) => nextDelayMs(n, SPEC_SCHEDULE, 0.2, random) ?? 0);
      for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThan(waits[i - 1] ?? Infinity);
    }
  });
});
