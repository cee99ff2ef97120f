import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { ApiError } from "@gw/errors";
import type { Logger } from "@gw/logger";

/** What a lease counts: the account's uploads (POST /media) or its downloads (GET /media/{media_id}). */
export type MediaTransferKind = "uploads" | "downloads";

/**
 * Media transfers in flight per account, counted across the pods (docs/decisions.md, "Caps: per account in Redis,
 * per pod in memory"): a lease in a Redis sorted set per account and kind (member: the transfer, score: when its lease
 * runs out), taken and counted by one Lua script. A lease a dead pod never gave back runs out by itself. With Redis
 * unreachable, each pod counts its own transfers (the same cap, per pod) rather than refusing every transfer.
 */
export interface MediaTransferLimits {
  readonly kind: MediaTransferKind;
  /** A release function, or null when the account already has `perAccount` transfers of this kind in flight. */
  acquire(accountId: string): Promise<(() => void) | null>;
}

// KEYS[1]: the account's leases. ARGV: now ms, lease ms, cap, member. Drops run-out leases, then takes one if below
// the cap. Reply: 1 taken, 0 refused.
const ACQUIRE = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
`;

/** How long the Redis call may take before this pod counts on its own. */
const REDIS_WAIT_MS = 1_000;

export function createMediaTransferLimits(options: {
  redis: Redis;
  keyPrefix: string;
  kind: MediaTransferKind;
  /** Transfers of this kind in flight per account (MEDIA_UPLOADS_PER_ACCOUNT, MEDIA_DOWNLOADS_PER_ACCOUNT). */
  perAccount: number;
  /** How long a lease lasts: the longest a transfer may take (MEDIA_TRANSFER_TIMEOUT_MS). */
  leaseMs: number;
  logger?: Logger;
}): MediaTransferLimits {
  const local = new Map<string, number>();
  const { kind } = options;
  const keyOf = (accountId: string) => `${options.keyPrefix}:media:${kind}:{${accountId}}`;

  function acquireLocally(accountId: string): (() => void) | null {
    const inFlight = local.get(accountId) ?? 0;
    if (inFlight >= options.perAccount) return null;
    local.set(accountId, inFlight + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (local.get(accountId) ?? 1) - 1;
      if (left <= 0) local.delete(accountId);
      else local.set(accountId, left);
    };
  }

  return {
    kind,
    async acquire(accountId) {
      const key = keyOf(accountId);
      const member = randomUUID();
      let timer: NodeJS.Timeout | undefined;
      let taken: number;
      try {
        taken = Number(
          await Promise.race([
            options.redis.eval(ACQUIRE, 1, key, Date.now(), options.leaseMs, options.perAccount, member),
            new Promise<never>((_resolve, reject) => {
              timer = setTimeout(() => reject(new Error(`no answer from Redis in ${REDIS_WAIT_MS} ms`)), REDIS_WAIT_MS);
            }),
          ]),
        );
      } catch (error) {
        options.logger?.warn("media transfer lease not taken in Redis; counting on this pod", {
          accountId,
          kind,
          error: (error as Error).message,
        });
        return acquireLocally(accountId);
      } finally {
        clearTimeout(timer);
      }
      if (taken !== 1) return null;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        options.redis.zrem(key, member).catch((error: unknown) => {
          // The lease runs out by itself.
          options.logger?.warn("media transfer lease not given back", {
            accountId,
            kind,
            error: (error as Error).message,
          });
        });
      };
    },
  };
}

/**
 * The account's turn for one transfer, taken before anything of the request is read or a slot of the pod is held:
 * its release, or the kind's 429 (`media_upload_limit`, `media_download_limit`) with Retry-After.
 */
export async function takeMediaTransferTurn(limits: MediaTransferLimits, accountId: string): Promise<() => void> {
  const release = await limits.acquire(accountId);
  if (release) return release;
  throw new ApiError(limits.kind === "uploads" ? "media_upload_limit" : "media_download_limit", {
    retryAfterSeconds: 5,
  });
}
