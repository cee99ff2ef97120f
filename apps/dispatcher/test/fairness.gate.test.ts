// The fairness gate alone (no I/O, a fake clock): the per-integration in-flight cap, how deferred jobs are spread
// out, and the circuit breaker's closed → open → half-open cycle.
import { describe, expect, it } from "@jest/globals";
import type { AttemptAdmission, WebhookResult } from "@gw/core/deliveries";
import { createFairnessGate, MAX_COOLDOWN_FACTOR, type FairnessOptions } from "../src/fairness.ts";

const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";

const timeout: WebhookResult = { statusCode: null, responseBody: null, errorKind: "timeout", durationMs: 1_000 };
const refused: WebhookResult = { statusCode: null, responseBody: null, errorKind: "connection_refused", durationMs: 1 };
const answered500: WebhookResult = { statusCode: 500, responseBody: "x", errorKind: "http_status", durationMs: 20 };
const delivered: WebhookResult = { statusCode: 200, responseBody: "", errorKind: null, durationMs: 20 };

function setup(overrides: Partial<FairnessOptions> = {}) {
  let clock = 1_000_000;
  const events: string[] = [];
  const gate = createFairnessGate({
    maxInFlight: 2,
    breakerFailures: 3,
    breakerCooldownMs: 10_000,
    now: () => clock,
    random: () => 0.5,
    onBreakerOpened: (id, d) => events.push(`open ${id} ${d.cooldownMs}${d.probe ? " probe" : ""}`),
    onBreakerClosed: (id) => events.push(`closed ${id}`),
    ...overrides,
  });
  return {
    gate,
    events,
    advance: (ms: number) => (clock += ms),
    now: () => clock,
  };
}

function admitted(admission: AttemptAdmission): Extract<AttemptAdmission, { admitted: true }> {
  if (!admission.admitted) throw new Error(`refused: ${admission.reason}`);
  return admission;
}

/** One attempt that ends with `result`. */
function attempt(gate: ReturnType<typeof setup>["gate"], id: string, result: WebhookResult): void {
  admitted(gate.enter(id)).leave(result);
}

describe("in-flight cap per integration", () => {
  it("admits up to the cap, defers the next one, and admits again once a slot is left", () => {
    const { gate, now } = setup();
    const first = admitted(gate.enter(A));
    admitted(gate.enter(A));
    const third = gate.enter(A);
    expect(third).toMatchObject({ admitted: false, reason: "in_flight_cap" });
    expect(!third.admitted && third.retryAt.getTime()).toBeGreaterThan(now());
    // Another integration is not affected.
    admitted(gate.enter(B));
    expect(gate.inFlight(A)).toBe(2);

    first.leave(delivered);
    expect(gate.inFlight(A)).toBe(1);
    admitted(gate.enter(A));
  });

  it("spreads deferred jobs one slot apart (expected duration / cap) instead of bringing them all back at once", () => {
    const { gate, now } = setup({ maxInFlight: 4 });
    // Measured: attempts of about 400 ms → one slot frees every ~100 ms.
    for (let i = 0; i < 20; i++) attempt(gate, A, { ...delivered, durationMs: 400 });
    for (let i = 0; i < 4; i++) admitted(gate.enter(A));

    const due = Array.from({ length: 50 }, () => {
      const refusal = gate.enter(A);
      if (refusal.admitted) throw new Error("admitted beyond the cap");
      return refusal.retryAt.getTime() - now();
    });
    for (let i = 1; i < due.length; i++) expect(due[i]).toBeGreaterThan(due[i - 1] ?? 0);
    // 50 jobs, ~100 ms apart: the last comes back after about 5 s, not all after the same short wait.
    expect(due.at(-1)).toBeGreaterThan(4_000);
    expect(due.at(-1)).toBeLessThan(6_500);
  });

  it("a double leave counts once", () => {
    const { gate } = setup({ maxInFlight: 1 });
    const one = admitted(gate.enter(A));
    one.leave(null);
    one.leave(null);
    admitted(gate.enter(A));
    expect(gate.enter(A)).toMatchObject({ admitted: false });
  });
});

describe("circuit breaker per integration", () => {
  it("opens after N consecutive unanswered attempts and defers every job until the cool-down ends", () => {
    const { gate, events, now, advance } = setup();
    attempt(gate, A, timeout);
    attempt(gate, A, refused);
    expect(gate.openBreakers()).toBe(0);
    attempt(gate, A, timeout);
    expect(events).toEqual([`open ${A} 10000`]);
    expect(gate.openBreakers()).toBe(1);

    const openedAt = now();
    for (let i = 0; i < 5; i++) {
      advance(1_000);
      const refusal = gate.enter(A);
      expect(refusal).toMatchObject({ admitted: false, reason: "breaker_open" });
      // Back after the cool-down, spread over the next one.
      const at = !refusal.admitted ? refusal.retryAt.getTime() : 0;
      expect(at).toBeGreaterThanOrEqual(openedAt + 10_000);
      expect(at).toBeLessThanOrEqual(openedAt + 20_000);
    }
    // Other integrations go on.
    attempt(gate, B, delivered);
  });

  it("an answer, even a 500, resets the count: only consecutive unanswered attempts open it", () => {
    const { gate, events } = setup();
    attempt(gate, A, timeout);
    attempt(gate, A, timeout);
    attempt(gate, A, answered500);
    attempt(gate, A, timeout);
    attempt(gate, A, timeout);
    expect(events).toEqual([]);
    expect(gate.enter(A)).toMatchObject({ admitted: true });
  });

  it("half-open: one probe after the cool-down; a failed probe reopens for twice as long, an answer closes it", () => {
    const { gate, events, advance } = setup();
    for (let i = 0; i < 3; i++) attempt(gate, A, timeout);
    advance(10_000);

    const probe = admitted(gate.enter(A));
    expect(gate.enter(A)).toMatchObject({ admitted: false, reason: "breaker_open" });
    probe.leave(timeout);
    expect(events.at(-1)).toBe(`open ${A} 20000 probe`);
    advance(10_000);
    expect(gate.enter(A)).toMatchObject({ admitted: false, reason: "breaker_open" });
    advance(10_000);

    const second = admitted(gate.enter(A));
    second.leave(delivered);
    expect(events.at(-1)).toBe(`closed ${A}`);
    expect(gate.openBreakers()).toBe(0);
    admitted(gate.enter(A));
    admitted(gate.enter(A));
  });

  it("the cool-down stops growing at MAX_COOLDOWN_FACTOR times the configured one", () => {
    const { gate, events, advance } = setup();
    for (let i = 0; i < 3; i++) attempt(gate, A, timeout);
    for (let i = 0; i < 10; i++) {
      advance(10_000 * MAX_COOLDOWN_FACTOR);
      attempt(gate, A, timeout);
    }
    expect(events.at(-1)).toBe(`open ${A} ${10_000 * MAX_COOLDOWN_FACTOR} probe`);
  });

  it("an answer to an older attempt closes it while the probe is out; the probe failing then counts from zero", () => {
    const { gate, events, advance } = setup({ maxInFlight: 4 });
    const older = admitted(gate.enter(A));
    for (let i = 0; i < 3; i++) attempt(gate, A, timeout);
    advance(10_000);
    const probe = admitted(gate.enter(A));
    older.leave(answered500);
    expect(events.at(-1)).toBe(`closed ${A}`);
    probe.leave(timeout);
    expect(events).toEqual([`open ${A} 10000`, `closed ${A}`]);
    expect(gate.openBreakers()).toBe(0);
    expect(gate.enter(A)).toMatchObject({ admitted: true });
  });

  it("a probe that made no request (job skipped) lets the next job probe", () => {
    const { gate, advance } = setup();
    for (let i = 0; i < 3; i++) attempt(gate, A, timeout);
    advance(10_000);
    admitted(gate.enter(A)).leave(null);
    expect(gate.enter(A)).toMatchObject({ admitted: true });
  });

  it("DISPATCHER_BREAKER_FAILURES=0: never opens", () => {
    const { gate, events } = setup({ breakerFailures: 0 });
    for (let i = 0; i < 50; i++) attempt(gate, A, timeout);
    expect(events).toEqual([]);
    expect(gate.enter(A)).toMatchObject({ admitted: true });
  });
});

describe("room for a job of several attempts (issue 34)", () => {
  it("says how many would be admitted without booking a turn, and nothing behind an open breaker", () => {
    const { gate, advance } = setup();
    expect(gate.room(A)).toBe(2);
    const held = admitted(gate.enter(A));
    expect(gate.room(A)).toBe(1);
    admitted(gate.enter(A));
    expect(gate.room(A)).toBe(0);
    held.leave(delivered);
    expect(gate.room(A)).toBe(1);
    for (let n = 0; n < 3; n++) attempt(gate, B, timeout);
    expect(gate.room(B)).toBe(0);
    advance(10_000);
    // Half-open: room for its one probe.
    expect(gate.room(B)).toBe(1);
  });

  it("lets any number of jobs wait for a fast integration's slot, each woken as one is left", async () => {
    const { gate } = setup();
    const slots = [admitted(gate.enter(A)), admitted(gate.enter(A))];
    const waits = [gate.whenRoom(A), gate.whenRoom(A), gate.whenRoom(A)];
    slots[0]?.leave(delivered);
    slots[1]?.leave(delivered);
    // Two slots left, two waiters woken; the third waits on.
    expect(
      await Promise.race([Promise.all(waits.slice(0, 2)), new Promise((r) => setTimeout(() => r("late"), 100))]),
    ).toEqual([true, true]);
    admitted(gate.enter(A)).leave(delivered);
    expect(await waits[2]).toBe(true);
  });

  it("keeps at most two jobs waiting for a slow integration, and none behind an open breaker", async () => {
    const { gate } = setup();
    const slow: WebhookResult = { ...delivered, durationMs: 2_000 };
    for (let n = 0; n < 20; n++) attempt(gate, A, slow);
    const slots = [admitted(gate.enter(A)), admitted(gate.enter(A))];
    const waits = [gate.whenRoom(A), gate.whenRoom(A)];
    expect(await gate.whenRoom(A)).toBe(false);
    for (const slot of slots) slot.leave(slow);
    expect(await Promise.all(waits)).toEqual([true, true]);

    for (let n = 0; n < 3; n++) attempt(gate, B, timeout);
    expect(await gate.whenRoom(B)).toBe(false);
  });
});
