/**
 * At most `max` media transfers from or to Meta at once in this process (the panel's media, the API's media
 * downloads and uploads). Others wait their turn for a short time (a
 * conversation's page asks for several images together), in a bounded line; past either bound the caller gives up
 * with a 503, rather than opening one more connection to Meta per click. A waiter whose browser went away leaves the
 * line. Hand-written: p-limit and its kin queue without a bound or a deadline.
 */
export interface DownloadSlots {
  /** A release function once a slot is free, or null when the line is full, the wait ran out or `signal` aborted. */
  acquire(signal?: AbortSignal): Promise<(() => void) | null>;
  /** Downloads running now (for tests and logs). */
  readonly active: number;
}

export function createDownloadSlots(options: { max: number; maxWaiting?: number; waitMs?: number }): DownloadSlots {
  // `maxWaiting: 0`: nobody waits (an upload refused at once rather than holding its client's body).
  const maxWaiting = options.maxWaiting ?? options.max * 4;
  const waitMs = options.waitMs ?? 10_000;
  let active = 0;
  const line: (() => void)[] = [];

  const release = () => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = line.shift();
      // The slot passes straight to the next waiter: `active` is unchanged.
      if (next) next();
      else active -= 1;
    };
  };

  return {
    get active() {
      return active;
    },
    acquire(signal) {
      if (signal?.aborted) return Promise.resolve(null);
      if (active < options.max) {
        active += 1;
        return Promise.resolve(release());
      }
      if (line.length >= maxWaiting) return Promise.resolve(null);
      return new Promise((resolve) => {
        const leave = () => {
          const at = line.indexOf(turn);
          if (at >= 0) line.splice(at, 1);
          clearTimeout(timer);
          signal?.removeEventListener("abort", leave);
          resolve(null);
        };
        const turn = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", leave);
          resolve(release());
        };
        const timer = setTimeout(leave, waitMs);
        signal?.addEventListener("abort", leave, { once: true });
        line.push(turn);
      });
    },
  };
}
