import { Redis, type RedisOptions } from "ioredis";

export type { Redis };

/**
 * Redis connections. Workers need `maxRetriesPerRequest: null` (BullMQ blocks on them); request paths
 * (API producers, rate limiter, caches) fail fast instead, so an outage turns into a 503, not a hang.
 */
export function createRedis(url: string, role: "worker" | "request" = "request", extra: RedisOptions = {}): Redis {
  return new Redis(url, {
    lazyConnect: false,
    connectTimeout: 5_000,
    ...(role === "worker"
      ? { maxRetriesPerRequest: null, enableReadyCheck: true }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: true, commandTimeout: 5_000 }),
    // Keep reconnecting, at most every 2 s: Redis outages are expected to be transient.
    retryStrategy: (times) => Math.min(times * 100, 2_000),
    ...extra,
  });
}

/**
 * PING with a deadline, for readiness probes. A connection still being opened (just after start-up)
 * gets the deadline to come up; one that lost Redis and is retrying is reported down at once.
 */
export async function pingRedis(redis: Redis, timeoutMs = 1_000): Promise<boolean> {
  if (redis.status === "reconnecting" || redis.status === "close" || redis.status === "end") return false;
  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    return await Promise.race([redis.ping().then((r) => r === "PONG"), deadline]);
  } catch {
    return false;
  } finally {
    if (timer) clearTimeout(timer);
  }
}
