/**
 * Retry schedule of spec 6.5: one initial attempt, then one retry per schedule entry, each wait varied
 * uniformly by ±jitter. We schedule the waits ourselves because BullMQ's backoff jitter only shortens them.
 */

/** Attempts in one budget: the initial one plus one per schedule entry (7 with the default schedule). */
export function attemptBudget(scheduleMs: readonly number[]): number {
  return 1 + scheduleMs.length;
}

/**
 * The wait before the next attempt, after attempt number `attemptInBudget` (1-based, counted from the start
 * of the current budget) failed: schedule[attemptInBudget - 1] × (1 + uniform(−jitter, +jitter)), rounded to
 * whole milliseconds. `null` when the budget is spent (no retry left).
 */
export function nextDelayMs(
  attemptInBudget: number,
  scheduleMs: readonly number[],
  jitter: number,
  random: () => number = Math.random,
): number | null {
  if (!Number.isInteger(attemptInBudget) || attemptInBudget < 1)
    throw new RangeError(`attemptInBudget must be a positive integer, got ${attemptInBudget}`);
  const base = scheduleMs[attemptInBudget - 1];
  if (base === undefined) return null;
  const spread = Math.min(Math.max(jitter, 0), 1);
  const factor = 1 + (2 * random() - 1) * spread;
  return Math.max(0, Math.round(base * factor));
}

/**
 * How long one budget of automatic attempts may last, from its start (the delivery's creation, or the manual
 * retry that gave it a fresh budget): the longest the schedule itself can take, every wait at its upper jitter
 * bound and every attempt at its time limit (the next wait starts when an attempt ends). A delivery still
 * `pending` past it was held back (an open circuit breaker, the in-flight cap, a dispatcher outage) rather than
 * on its schedule, and is failed with its last error (spec 6.5: "about 31 hours", ±20 %). Never shorter than the
 * schedule: a delivery that is never held back always gets all its attempts before it.
 */
export function budgetLifetimeMs(settings: {
  scheduleMs: readonly number[];
  jitter: number;
  /** The time limit of one attempt (WEBHOOK_TIMEOUT_MS). */
  attemptTimeoutMs: number;
}): number {
  const spread = Math.min(Math.max(settings.jitter, 0), 1);
  // Each wait is rounded to whole ms by nextDelayMs: ceil keeps the bound above every rounding.
  const waits = settings.scheduleMs.reduce((sum, base) => sum + Math.ceil(base * (1 + spread)), 0);
  return waits + attemptBudget(settings.scheduleMs) * settings.attemptTimeoutMs;
}

/**
 * `budget_started_at` of a delivery waiting for its integration's re-enable (admin/endpoint-health.ts): its budget of
 * automatic attempts has not started (expiry.ts skips it).
 */
export const PARKED_BUDGET_START = "9999-12-31T00:00:00.000Z";
