import type { Redis } from "../redis.ts";

export interface PeriodicTask<T> {
  /** One run now; a run already in progress is joined. Resolves null when it failed. */
  run(): Promise<T | null>;
  start(intervalMs: number): void;
  /** Stops the cycle and waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * A maintenance task run now and then every `intervalMs` once started, never overlapping itself. When a run
 * says there is more to do (`again`), the next one starts at once instead of waiting for the interval. A failure
 * is reported and resolves to null; the next cycle tries again.
 */
export function periodicTask<T>(
  task: () => Promise<T>,
  onError: (error: Error) => void,
  again: (result: T) => boolean = () => false,
): PeriodicTask<T> {
  let inFlight: Promise<T | null> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const run = (): Promise<T | null> =>
    (inFlight ??= task()
      .catch((error: unknown) => {
        onError(error instanceof Error ? error : new Error(String(error)));
        return null;
      })
      .finally(() => {
        inFlight = null;
      })
      .then((result) => {
        if (result !== null && !stopped && timer !== undefined && again(result)) setImmediate(() => void run());
        return result;
      }));
  return {
    run,
    start(intervalMs) {
      stopped = false;
      timer = setInterval(() => void run(), intervalMs);
      void run();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await inFlight;
    },
  };
}

/** Resolves true when `promise` settled in time, false otherwise (a rejection counts as settled). */
export async function withDeadline(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      deadline,
    ]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** QUIT, or drop the connection when Redis does not answer within a second. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === "end") return;
  const quit = await withDeadline(
    redis.quit().then(() => undefined),
    1_000,
  );
  if (!quit) redis.disconnect();
}
