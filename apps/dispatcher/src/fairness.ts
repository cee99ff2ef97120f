import type { AttemptAdmission, AttemptGate, DeliveryErrorKind, WebhookResult } from "@gw/core/deliveries";

/**
 * Fairness between integrations, per dispatcher process (docs/decisions.md, "Fairness between integrations").
 *
 * - **In-flight cap.** At most `maxInFlight` attempts to one integration at once in this process; a job beyond it
 *   is deferred (moved to BullMQ's delayed set) instead of waiting in a worker slot.
 * - **Circuit breaker.** After `breakerFailures` consecutive attempts that got no answer (timeout, connection
 *   refused or reset, ...), the integration's jobs are deferred without any request for `breakerCooldownMs`; then
 *   one attempt goes through (half-open). An answer closes the breaker; another failure opens it again for twice
 *   the previous cool-down, up to `MAX_COOLDOWN_FACTOR` times the configured one.
 *
 * Deferred jobs come back spread out, not all at once: behind the cap, one every (expected attempt duration / cap),
 * so a backlog returns at about the pace the integration can take it; behind an open breaker, spread over one
 * cool-down after it ends. A deferral spends no delivery attempt and makes no query (when the job names its
 * integration).
 *
 * An open breaker no job comes back to (its deliveries were failed by their schedule's deadline, and their jobs
 * removed) is forgotten once every job it deferred would have returned, plus `FORGET_IDLE_MS`: nobody is left to
 * probe the endpoint, and it would count as open for ever. The next delivery to that integration then starts from
 * a closed breaker (at worst `breakerFailures` more unanswered attempts before it opens again).
 */
export interface FairnessOptions {
  maxInFlight: number;
  /** Jobs of several attempts that may wait in-process for the integration's room (DEFAULT_MAX_WAITING_JOBS). */
  maxWaitingJobs?: number;
  /** 0 = no breaker. */
  breakerFailures: number;
  breakerCooldownMs: number;
  now?: () => number;
  random?: () => number;
  onBreakerOpened?: (integrationId: string, details: { failures: number; cooldownMs: number; probe: boolean }) => void;
  onBreakerClosed?: (integrationId: string) => void;
  /** An open breaker forgotten because no job of its integration came back (see above). */
  onBreakerForgotten?: (integrationId: string) => void;
}

export interface FairnessGate extends AttemptGate {
  room(integrationId: string): number;
  whenRoom(integrationId: string): Promise<boolean>;
  /** Integrations whose breaker is open or half-open in this process (dormant ones forgotten first, when due). */
  openBreakers(): number;
  /** Attempts in flight to one integration in this process. */
  inFlight(integrationId: string): number;
}

/** Errors that mean the endpoint did not answer: they count towards opening the breaker. */
const NO_ANSWER: ReadonlySet<DeliveryErrorKind> = new Set<DeliveryErrorKind>([
  "timeout",
  "connection_refused",
  "connection_reset",
  "unreachable",
  "dns",
  "tls",
  "network",
]);

/** A breaker that keeps failing its probe waits at most this many times the configured cool-down. */
export const MAX_COOLDOWN_FACTOR = 16;
/**
 * Expected attempt duration of an integration not measured yet. Optimistic on purpose: too short only brings
 * deferred jobs back a little early (at most maxInFlight per this much time), too long would leave a healthy
 * integration's slots idle while its burst waits in the delayed set.
 */
const INITIAL_EXPECTED_MS = 100;
/**
 * Jobs of several attempts that may wait in a worker slot for the room of a slow integration (whenRoom); more are
 * deferred. They hold a worker slot while they wait, so only a few: the rest of the slots stay with the other
 * integrations.
 */
const DEFAULT_MAX_WAITING_JOBS = 2;
/** An integration whose attempts take this long or less (moving average) is fast: every job may wait for its room. */
const FAST_ATTEMPT_MS = 200;
/** Longest such a wait before the job is deferred instead. */
const WAIT_FOR_ROOM_MS = 30_000;
/** Longest wait given to a job deferred by the cap (a longer backlog comes back and is deferred again). */
const MAX_CAP_DEFER_MS = 60_000;
/** Weight of the newest duration in the moving average. */
const EWMA_WEIGHT = 0.2;
/**
 * An integration idle (closed, nothing in flight or deferred) this long is forgotten (its average with it); an open
 * breaker, this long after every job it deferred would have come back.
 */
const FORGET_IDLE_MS = 600_000;

interface IntegrationState {
  inFlight: number;
  /** Jobs of several attempts waiting in this process for one of its slots (whenRoom). */
  waiters: (() => void)[];
  /** Consecutive attempts without an answer. */
  failures: number;
  /** 0 = closed; otherwise open until then, half-open after. */
  openUntil: number;
  cooldownMs: number;
  /** A half-open attempt is in flight. */
  probing: boolean;
  /** Moving average of attempt durations (ms). */
  expectedMs: number;
  /** When the next job deferred by the cap is due (spreads a backlog out). */
  nextSlotAt: number;
  lastSeen: number;
}

export function createFairnessGate(options: FairnessOptions): FairnessGate {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const states = new Map<string, IntegrationState>();
  let prunedAt = now();

  function stateOf(integrationId: string, at: number): IntegrationState {
    pruneWhenDue(at);
    let state = states.get(integrationId);
    if (!state) {
      state = {
        inFlight: 0,
        waiters: [],
        failures: 0,
        openUntil: 0,
        cooldownMs: options.breakerCooldownMs,
        probing: false,
        expectedMs: INITIAL_EXPECTED_MS,
        nextSlotAt: 0,
        lastSeen: at,
      };
      states.set(integrationId, state);
    }
    state.lastSeen = at;
    return state;
  }

  function pruneWhenDue(at: number): void {
    if (at - prunedAt >= FORGET_IDLE_MS) prune(at);
  }

  function prune(at: number): void {
    prunedAt = at;
    for (const [integrationId, state] of states) {
      const idle = state.inFlight === 0 && state.failures === 0 && state.openUntil === 0 && state.nextSlotAt <= at;
      if (idle && at - state.lastSeen >= FORGET_IDLE_MS) states.delete(integrationId);
      // Open, and every job it deferred (each back within a cool-down of the later of its deferral and the end of
      // the breaker) should have returned long ago: none is left to probe with.
      const dormant =
        state.openUntil !== 0 &&
        state.inFlight === 0 &&
        !state.probing &&
        at - Math.max(state.lastSeen, state.openUntil) >= state.cooldownMs + FORGET_IDLE_MS;
      if (dormant) {
        states.delete(integrationId);
        options.onBreakerForgotten?.(integrationId);
      }
    }
  }

  /** `probe`: a half-open breaker whose probe failed (it was not closed in between). */
  function open(integrationId: string, state: IntegrationState, at: number, probe: boolean): void {
    state.cooldownMs = probe
      ? Math.min(state.cooldownMs * 2, options.breakerCooldownMs * MAX_COOLDOWN_FACTOR)
      : options.breakerCooldownMs;
    state.openUntil = at + state.cooldownMs;
    options.onBreakerOpened?.(integrationId, { failures: state.failures, cooldownMs: state.cooldownMs, probe });
  }

  function close(integrationId: string, state: IntegrationState): void {
    const wasOpen = state.openUntil !== 0;
    state.failures = 0;
    state.openUntil = 0;
    state.cooldownMs = options.breakerCooldownMs;
    if (wasOpen) options.onBreakerClosed?.(integrationId);
  }

  function leave(integrationId: string, state: IntegrationState, probe: boolean, result: WebhookResult | null): void {
    const at = now();
    state.inFlight--;
    if (probe) state.probing = false;
    // A slot is free: the job waiting longest for one asks again.
    state.waiters.shift()?.();
    if (result !== null) {
      state.expectedMs += (result.durationMs - state.expectedMs) * EWMA_WEIGHT;
      if (result.errorKind !== null && NO_ANSWER.has(result.errorKind)) {
        state.failures++;
        if (state.openUntil !== 0) {
          // Half-open and the probe failed: open again, for longer. (Attempts that started before the breaker
          // opened and fail after it add nothing.)
          if (probe) open(integrationId, state, at, true);
        } else if (options.breakerFailures > 0 && state.failures >= options.breakerFailures) {
          open(integrationId, state, at, false);
        }
      } else if (result.statusCode !== null) {
        // Any answer, even a 500 or a redirect: the endpoint is there and does not hold the slot.
        close(integrationId, state);
      }
      // Otherwise (invalid URL, refused address): nothing was tried on the network; it proves nothing.
    }
  }

  return {
    enter(integrationId): AttemptAdmission {
      const at = now();
      const state = stateOf(integrationId, at);
      const halfOpen = state.openUntil !== 0 && at >= state.openUntil;
      if (state.openUntil !== 0 && (!halfOpen || state.probing)) {
        // Back spread over one cool-down after the breaker ends (or after the probe in flight).
        const from = Math.max(state.openUntil, at);
        return {
          admitted: false,
          reason: "breaker_open",
          retryAt: new Date(from + Math.round(random() * state.cooldownMs)),
        };
      }
      if (state.inFlight >= options.maxInFlight) {
        // One slot of this integration is expected to free every expectedMs / maxInFlight: each deferred job gets
        // the next one. Past MAX_CAP_DEFER_MS the rest come back spread over its second half.
        const spacing = Math.max(state.expectedMs / options.maxInFlight, 1);
        const slot = Math.max(state.nextSlotAt, at) + spacing * (0.9 + 0.2 * random());
        const latest = at + MAX_CAP_DEFER_MS;
        state.nextSlotAt = Math.min(slot, latest);
        const due = slot <= latest ? slot : latest - (MAX_CAP_DEFER_MS / 2) * random();
        return { admitted: false, reason: "in_flight_cap", retryAt: new Date(Math.round(due)) };
      }
      state.inFlight++;
      const probe = halfOpen;
      if (probe) state.probing = true;
      let left = false;
      return {
        admitted: true,
        leave(result) {
          if (left) return;
          left = true;
          leave(integrationId, state, probe, result);
        },
      };
    },
    whenRoom(integrationId) {
      const state = states.get(integrationId);
      if (!state || state.openUntil !== 0) return Promise.resolve(state === undefined);
      if (state.inFlight < options.maxInFlight) return Promise.resolve(true);
      // A fast integration frees a slot within milliseconds: its jobs wait for one rather than go round the delayed
      // set (a return books another of its turns). A slow one keeps only a few jobs waiting in worker slots.
      const maxWaiting =
        state.expectedMs <= FAST_ATTEMPT_MS ? Infinity : (options.maxWaitingJobs ?? DEFAULT_MAX_WAITING_JOBS);
      if (state.waiters.length >= maxWaiting) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
        // A slot held by a request that never ends is freed by its deadline; this only bounds the wait regardless.
        const timer = setTimeout(() => {
          state.waiters = state.waiters.filter((w) => w !== wake);
          resolve(false);
        }, WAIT_FOR_ROOM_MS);
        timer.unref();
        state.waiters.push(wake);
      });
    },
    room(integrationId) {
      const state = states.get(integrationId);
      if (!state) return options.maxInFlight;
      // Open: nothing; half-open: its one probe, unless it is out already.
      if (state.openUntil !== 0) return now() >= state.openUntil && !state.probing ? 1 : 0;
      return Math.max(0, options.maxInFlight - state.inFlight);
    },
    openBreakers() {
      pruneWhenDue(now());
      let count = 0;
      for (const state of states.values()) if (state.openUntil !== 0) count++;
      return count;
    },
    inFlight(integrationId) {
      return states.get(integrationId)?.inFlight ?? 0;
    },
  };
}
