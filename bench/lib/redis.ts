// Redis housekeeping and memory figures for the benches. Every stage works under its own key prefix and deletes
// exactly the keys under it at the end (SCAN + UNLINK, never FLUSHDB: the Redis is shared).
import { createRedis, type Redis } from "@gw/jobs";

export function benchRedis(url: string): Redis {
  // Bulk seeding sends long pipelines: a generous command timeout instead of the request role's 5 s.
  return createRedis(url, "request", { commandTimeout: 120_000, maxRetriesPerRequest: 3 });
}

/** Deletes every key under `<prefix>:`; returns how many. */
export async function deleteKeysWithPrefix(redis: Redis, prefix: string): Promise<number> {
  if (!/^[A-Za-z0-9_-]+$/.test(prefix)) throw new Error(`refusing to delete keys under an unusual prefix: ${prefix}`);
  let cursor = "0";
  let deleted = 0;
  do {
    const [nextCursor, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 5_000);
    cursor = nextCursor;
    if (keys.length) deleted += await redis.unlink(...keys);
  } while (cursor !== "0");
  return deleted;
}

/** `used_memory` of INFO memory, in bytes (the whole Redis: other users' keys move it too). */
export async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info("memory");
  const value = /^used_memory:(\d+)/m.exec(info)?.[1];
  if (value === undefined) throw new Error("INFO memory without used_memory");
  return Number(value);
}

/** MEMORY USAGE of one key in bytes (`samples` 0 = exact, for aggregates); null when the key does not exist. */
export async function memoryUsage(redis: Redis, key: string, samples?: number): Promise<number | null> {
  const args: (string | number)[] = ["USAGE", key];
  if (samples !== undefined) args.push("SAMPLES", samples);
  const value = (await redis.call("MEMORY", ...args)) as number | null;
  return value;
}
