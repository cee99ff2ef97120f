import type { ErrorRequestHandler, Request, RequestHandler } from "express";
import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { ApiError } from "@gw/errors";
import { clientAddressKey } from "@gw/http";

export interface RateLimitOptions {
  redis: Redis;
  keyPrefix: string;
  points: number;
  windowSeconds: number;
}

/**
 * Requests per API key per window, counted in Redis so every API pod shares the budget. If Redis is
 * unreachable the per-pod in-memory limiter takes over rather than refusing every request.
 */
export function rateLimitPerKey(options: RateLimitOptions): RequestHandler {
  const limiter = new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix: `${options.keyPrefix}:ratelimit`,
    points: options.points,
    duration: options.windowSeconds,
    insuranceLimiter: new RateLimiterMemory({ points: options.points, duration: options.windowSeconds }),
  });
  return async (req, res, next) => {
    const keyId = req.auth?.keyId;
    if (!keyId) return next();
    try {
      const result = await limiter.consume(keyId);
      res.setHeader("X-RateLimit-Limit", String(options.points));
      res.setHeader("X-RateLimit-Remaining", String(Math.max(0, result.remainingPoints)));
      next();
    } catch (rejection: unknown) {
      if (rejection instanceof RateLimiterRes) {
        return next(
          new ApiError("api_rate_limited", {
            retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)),
          }),
        );
      }
      next(rejection);
    }
  };
}

/** Addresses with a refusal in the current window on this pod, bounded; only they pay the Redis check. */
class RecentAddresses {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  add(address: string): void {
    this.until.delete(address);
    if (this.until.size >= this.maxEntries) {
      const oldest = this.until.keys().next();
      if (!oldest.done) this.until.delete(oldest.value);
    }
    this.until.set(address, Date.now() + this.ttlMs);
  }

  has(address: string): boolean {
    const until = this.until.get(address);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.until.delete(address);
    return false;
  }
}

const TOO_MANY_REFUSALS =
  "Muitas chaves de API recusadas a partir deste endereço; aguarde o tempo indicado em Retry-After.";

export interface AuthFailureLimit {
  /** Before the key check: 429 for an address past its budget of refused keys, without looking up its key. */
  guard: RequestHandler;
  /** After the key check (an error handler): counts a refused key against the address, then passes the error on. */
  countRefusal: ErrorRequestHandler;
}

/**
 * Refused API keys per client address (`req.ip`, so TRUST_PROXY_HOPS decides what the address is), counted in Redis
 * and shared by every pod. Only refusals count: integrators behind one NAT address share nothing but the failures
 * of whoever presents bad keys from it. A pod checks Redis only for addresses it saw refused in the window, so
 * well-behaved clients pay no extra call; an address spread over P pods gets at most P refusals more. If Redis is
 * unreachable each pod counts in memory; if even that fails, the request goes on (this limit never refuses a
 * valid key because of its own failure).
 */
export function authFailuresPerIp(options: RateLimitOptions): AuthFailureLimit {
  const limiter = new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix: `${options.keyPrefix}:authfail`,
    points: options.points,
    duration: options.windowSeconds,
    insuranceLimiter: new RateLimiterMemory({ points: options.points, duration: options.windowSeconds }),
  });
  const recent = new RecentAddresses(options.windowSeconds * 1000);
  const addressOf = (req: Request) => clientAddressKey(req.ip ?? req.socket.remoteAddress ?? "unknown");

  const guard: RequestHandler = (req, _res, next) => {
    const address = addressOf(req);
    if (!recent.has(address)) return next();
    limiter.get(address).then(
      (state) => {
        if (!state || state.consumedPoints < options.points) return next();
        const retryAfterSeconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
        next(new ApiError("api_rate_limited", { message: TOO_MANY_REFUSALS, retryAfterSeconds }));
      },
      () => next(),
    );
  };
  const countRefusal: ErrorRequestHandler = (error, req, _res, next) => {
    if (!(error instanceof ApiError && error.code === "invalid_api_key")) return next(error);
    const address = addressOf(req);
    recent.add(address);
    limiter.penalty(address, 1).then(
      () => next(error),
      () => next(error),
    );
  };
  return { guard, countRefusal };
}
