import type { RequestHandler } from "express";
import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { ApiError } from "@gw/errors";

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
