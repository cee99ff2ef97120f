// The fairness gate alone (no I/O, a fake clock): an open breaker whose integration has no job left (its deliveries
// failed by their schedule's deadline, their jobs removed) is forgotten, so gw_webhook_breakers_open does not count
// it for ever; one whose deferred jobs keep coming back is not.
import { describe, expect, it } from "@jest/globals";
import type { AttemptAdmission, WebhookResult } from "@gw/core/deliveries";
import { createFairnessGate, MAX_COOLDOWN_FACTOR } from "../src/fairness.ts";

const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";
const COOLDOWN_MS = 10_000;
/** FORGET_IDLE_MS of fairness.ts. */
const FORGET_IDLE_MS = 600_000;

const timeout: WebhookResult = { statusCode: null, responseBody: null, errorKind: "timeout", durationMs: 1_000 };

function setup() {
  let clock = 1_000_000;
  const events: string[] = [];
  const gate = createFairnessGate({
    maxInFlight: 2,
    breakerFailures: 3,
    breakerCooldownMs: COOLDOWN_MS,
    now: () => clock,
    random: () => 0.5,
    onBreakerOpened: (id) => events.push(`open ${id}`),
    onBreakerClosed: (id) => events.push(`closed ${id}`),
    onBreakerForgotten: (id) => events.push(`forgotten ${id}`),
  });
  return { gate, events, advance: (ms: number) => (clock += ms) };
}

function admitted(admission: AttemptAdmission): Extract<AttemptAdmission, { admitted: true }> {
  if (!admission.admitted) throw new Error(`refused: ${admission.reason}`);
  return admission;
}

function openBreaker(gate: ReturnType<typeof setup>["gate"], id: string): void {
  for (let i = 0; i < 3; i++) admitted(gate.enter(id)).leave(timeout);
}

describe("an open breaker no job comes back to", () => {
  it("is forgotten once every deferred job would have returned, and stops counting as open", () => {
    const { gate, events, advance } = setup();
    openBreaker(gate, A);
    // One deferral: back within a cool-down after the breaker ends.
    expect(gate.enter(A)).toMatchObject({ admitted: false, reason: "breaker_open" });
    expect(gate.openBreakers()).toBe(1);

    // Nothing comes back (the delivery failed by its deadline, its job removed). Not before the bound (the end of
    // the breaker, a cool-down for the deferred job to return, FORGET_IDLE_MS)...
    advance(COOLDOWN_MS + COOLDOWN_MS + FORGET_IDLE_MS - 1);
    expect(gate.openBreakers()).toBe(1);
    // ...and at the next pruning after it (they run FORGET_IDLE_MS apart).
    advance(FORGET_IDLE_MS);
    expect(gate.openBreakers()).toBe(0);
    expect(events).toEqual([`open ${A}`, `forgotten ${A}`]);

    // The next delivery of A starts from a closed breaker: a normal attempt, not a probe.
    const next = admitted(gate.enter(A));
    expect(gate.enter(A)).toMatchObject({ admitted: true });
    next.leave(timeout);
    expect(events).toEqual([`open ${A}`, `forgotten ${A}`]);
  });

  it("is kept while its deferred jobs keep coming back, however long the outage", () => {
    const { gate, events, advance } = setup();
    openBreaker(gate, A);
    for (let i = 0; i < 100; i++) {
      advance(COOLDOWN_MS * MAX_COOLDOWN_FACTOR);
      // Each cool-down's probe fails; the other jobs are deferred again.
      const probe = gate.enter(A);
      if (probe.admitted) probe.leave(timeout);
      expect(gate.enter(A)).toMatchObject({ admitted: false, reason: "breaker_open" });
    }
    expect(gate.openBreakers()).toBe(1);
    expect(events.filter((e) => e.startsWith("forgotten"))).toEqual([]);
  });

  it("with a probe in flight it is not forgotten, and another integration's state is left as it is", () => {
    const { gate, events, advance } = setup();
    openBreaker(gate, A);
    openBreaker(gate, B);
    advance(COOLDOWN_MS);
    const probe = admitted(gate.enter(A));
    advance(2 * COOLDOWN_MS + FORGET_IDLE_MS);
    expect(gate.openBreakers()).toBe(1);
    expect(events).toEqual([`open ${A}`, `open ${B}`, `forgotten ${B}`]);
    probe.leave(timeout);
    expect(gate.openBreakers()).toBe(1);
  });
});
