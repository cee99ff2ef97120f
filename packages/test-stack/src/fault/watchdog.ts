// Notices a process of the fault run that dies or hangs. Every watched process is polled on its liveness probe
// (answers while the process serves requests) and, when it has one, its readiness probe (200 while it reaches
// PostgreSQL and Redis). A process that exits without being told to, does not answer its liveness probe for longer
// than `maxSilenceMs`, or stays unready for longer than `maxUnreadyMs` (it never recovered from an outage) is a
// failure named after the process; `assertHealthy()` throws it, so a wait that calls it ends at once.
import { tail, type RunningApp } from "./apps.ts";

export interface WatchdogOptions {
  maxSilenceMs: number;
  maxUnreadyMs: number;
  intervalMs?: number;
}

interface Watched {
  app: RunningApp;
  lastAnswerAt: number;
  lastReadyAt: number;
  /** Set by `release`: an exit from now on was asked for. */
  released: boolean;
  polling: boolean;
}

export interface Watchdog {
  /** Start watching a process that is up. */
  watch(app: RunningApp): void;
  /** Stop watching, before killing or stopping it on purpose. */
  release(app: RunningApp): void;
  /** Throws the first failure seen, naming the process. */
  assertHealthy(): void;
  /**
   * Runs `body`; if it throws, the watchdog's own failure (a process died or hung) replaces the error when one shows
   * within a moment, since a dead process is usually first seen as a refused connection.
   */
  guard(body: () => Promise<void>): Promise<void>;
  /** Longest liveness silence and unready stretch seen per process, in ms (for the figures). */
  worst(): Record<string, { silenceMs: number; unreadyMs: number }>;
  stop(): void;
}

/** Whether `url` answered within `timeoutMs` (any HTTP status), and with which. */
async function probe(url: string, timeoutMs: number): Promise<number | null> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return null;
  }
}

export function createWatchdog(options: WatchdogOptions): Watchdog {
  const intervalMs = options.intervalMs ?? 250;
  const watched = new Map<string, Watched>();
  const worst: Record<string, { silenceMs: number; unreadyMs: number }> = {};
  let failure: Error | null = null;

  const fail = (entry: Watched, why: string) => {
    failure ??= new Error(
      `processo ${entry.app.name} ${why}\nÚltimas linhas de ${entry.app.name}:\n${tail(entry.app)}`,
    );
  };

  const poll = async (entry: Watched) => {
    if (entry.polling) return;
    entry.polling = true;
    try {
      const { app } = entry;
      const now = Date.now();
      const [alive, ready] = await Promise.all([
        probe(`${app.url}${app.livenessPath}`, Math.min(2_000, options.maxSilenceMs)),
        app.readinessPath ? probe(`${app.url}${app.readinessPath}`, 2_000) : Promise.resolve(200),
      ]);
      if (entry.released) return;
      if (alive !== null) entry.lastAnswerAt = Date.now();
      if (ready === 200) entry.lastReadyAt = Date.now();
      const record = (worst[app.name] ??= { silenceMs: 0, unreadyMs: 0 });
      record.silenceMs = Math.max(record.silenceMs, now - entry.lastAnswerAt);
      record.unreadyMs = Math.max(record.unreadyMs, now - entry.lastReadyAt);
      if (now - entry.lastAnswerAt > options.maxSilenceMs)
        fail(entry, `não respondeu a ${app.livenessPath} por mais de ${options.maxSilenceMs} ms (travado).`);
      else if (now - entry.lastReadyAt > options.maxUnreadyMs)
        fail(
          entry,
          `ficou sem ${app.readinessPath ?? ""} 200 por mais de ${options.maxUnreadyMs} ms (não se recuperou da falha).`,
        );
    } finally {
      entry.polling = false;
    }
  };

  const timer = setInterval(() => {
    for (const entry of watched.values()) void poll(entry);
  }, intervalMs);

  return {
    watch(app) {
      const entry: Watched = {
        app,
        lastAnswerAt: Date.now(),
        lastReadyAt: Date.now(),
        released: false,
        polling: false,
      };
      watched.set(app.name, entry);
      void app.process.exited.then(({ code, signal }) => {
        if (!entry.released) fail(entry, `terminou sem que o teste pedisse (código ${code}, sinal ${signal}).`);
      });
    },
    release(app) {
      const entry = watched.get(app.name);
      if (entry) entry.released = true;
      watched.delete(app.name);
    },
    assertHealthy() {
      if (failure) throw failure;
    },
    async guard(body) {
      try {
        await body();
      } catch (error) {
        const until = Date.now() + 2 * intervalMs + 1_000;
        while (!failure && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
        throw failure ?? error;
      }
    },
    worst: () => worst,
    stop() {
      clearInterval(timer);
      for (const entry of watched.values()) entry.released = true;
      watched.clear();
    },
  };
}
