/** A value that means "not yet" to eventually(). */
type NotYet = undefined | null | false;

export interface EventuallyOptions {
  /** Give up after this long (the test's own timeout still applies). */
  timeoutMs?: number;
  intervalMs?: number;
  /** What is awaited, for the timeout message. */
  what?: string;
}

/**
 * Polls `check` until it returns something other than undefined, null or false, and returns that; throws once
 * `timeoutMs` passed without it. The one polling helper of the tests (a boolean check resolves to `true`).
 */
export async function eventually<T>(
  check: () => T | NotYet | Promise<T | NotYet>,
  { timeoutMs = 10_000, intervalMs = 25, what = "condition" }: EventuallyOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
