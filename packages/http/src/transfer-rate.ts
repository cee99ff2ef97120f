/**
 * A media transfer's minimum rate (issue 35, item 7). A client that trickles its upload, or reads its download
 * slowly, would otherwise hold one of the pod's few transfer slots and one of its account's leases for as long as the
 * server lets a request last (10 minutes). The bytes the transfer actually moved are counted (`add`); at the end of
 * each window of `windowMs` (the first one is the grace period), fewer than `minBytesPerSecond` over that window calls
 * `onTooSlow` once and the watch stops. The caller cuts the transfer, and stops the watch when the transfer ends.
 */
export interface RateWatch {
  /** Counts bytes moved. */
  add(bytes: number): void;
  /** Stops watching (the transfer ended or was cut); idempotent. */
  stop(): void;
}

/** What a transfer cut for its rate had moved, for its log line. */
export interface TooSlow {
  /** Bytes moved since the transfer began. */
  bytes: number;
  /** Bytes moved in the window that was too slow. */
  windowBytes: number;
  elapsedMs: number;
}

export function watchTransferRate(options: {
  minBytesPerSecond: number;
  windowMs: number;
  onTooSlow: (slow: TooSlow) => void;
}): RateWatch {
  const started = Date.now();
  const needed = (options.minBytesPerSecond * options.windowMs) / 1000;
  let bytes = 0;
  let atWindowStart = 0;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
  };
  const timer = setInterval(() => {
    const windowBytes = bytes - atWindowStart;
    atWindowStart = bytes;
    if (windowBytes >= needed) return;
    stop();
    options.onTooSlow({ bytes, windowBytes, elapsedMs: Date.now() - started });
  }, options.windowMs);
  // The transfer keeps the process alive, not its watch.
  timer.unref();
  return {
    add(moved) {
      bytes += moved;
    },
    stop,
  };
}
