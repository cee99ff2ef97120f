import { Redis, type RedisOptions } from "ioredis";

export type { Redis };

/** Where Redis is: a URL, or (the config's redis section) a URL and the Sentinels that know the current primary. */
export type RedisTarget =
  | string
  | {
      REDIS_URL: string;
      /** Empty: REDIS_URL's host. */
      REDIS_SENTINELS?: readonly { host: string; port: number }[];
      REDIS_SENTINEL_MASTER?: string;
      /** The Sentinels' own credentials and TLS (not the primary's: REDIS_URL carries those). */
      REDIS_SENTINEL_USERNAME?: string | undefined;
      REDIS_SENTINEL_PASSWORD?: string | undefined;
      REDIS_SENTINEL_TLS?: boolean;
    };

/**
 * Redis connections, every one of the apps' (BullMQ queues and workers, rate limiter, caches). Workers need
 * `maxRetriesPerRequest: null` (BullMQ blocks on them); request paths (API producers, rate limiter, caches) fail
 * fast instead, so an outage turns into a 503, not a hang. Through Sentinel, the connection asks the Sentinels for the
 * primary, and after a failover (connection lost, or the Sentinels' +switch-master) asks again and reconnects.
 */
export function createRedis(
  target: RedisTarget,
  role: "worker" | "request" = "request",
  extra: RedisOptions = {},
): Redis {
  const options: RedisOptions = {
    lazyConnect: false,
    connectTimeout: 5_000,
    ...(role === "worker"
      ? { maxRetriesPerRequest: null, enableReadyCheck: true }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: true, commandTimeout: 5_000 }),
    // Keep reconnecting, at most every 2 s: Redis outages are expected to be transient.
    retryStrategy: (times) => Math.min(times * 100, 2_000),
    ...extra,
  };
  if (typeof target === "string") return new Redis(target, options);
  const sentinels = target.REDIS_SENTINELS ?? [];
  if (sentinels.length === 0) return new Redis(target.REDIS_URL, options);
  return new Redis({ ...sentinelOptions(target, sentinels), ...options });
}

/**
 * The primary's credentials and database come from REDIS_URL; its address from the Sentinels, reached with their own
 * credentials and TLS (ioredis uses them for every Sentinel connection: the primary's lookup and the +switch-master
 * subscription).
 */
function sentinelOptions(
  target: Exclude<RedisTarget, string>,
  sentinels: readonly { host: string; port: number }[],
): RedisOptions {
  const parsed = new URL(target.REDIS_URL);
  const db = Number(parsed.pathname.replace(/^\//, "") || 0);
  return {
    sentinels: sentinels.map(({ host, port }) => ({ host, port })),
    name: target.REDIS_SENTINEL_MASTER ?? "mymaster",
    role: "master",
    ...(target.REDIS_SENTINEL_USERNAME ? { sentinelUsername: target.REDIS_SENTINEL_USERNAME } : {}),
    ...(target.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: target.REDIS_SENTINEL_PASSWORD } : {}),
    // The system's CAs (NODE_EXTRA_CA_CERTS adds a private one); the Sentinel's name is checked as for any TLS.
    ...(target.REDIS_SENTINEL_TLS ? { sentinelTLS: {} } : {}),
    // Subscribe to the Sentinels' +switch-master: reconnect to the promoted replica as soon as it is chosen.
    failoverDetector: true,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(Number.isInteger(db) && db > 0 ? { db } : {}),
    ...(parsed.protocol === "rediss:" ? { tls: {}, enableTLSForSentinelMode: true } : {}),
  };
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
