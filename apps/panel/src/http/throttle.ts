import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { Redis } from "ioredis";

export interface LoginThrottleOptions {
  redis: Redis;
  keyPrefix: string;
  maxFailuresPerEmail: number;
  maxFailuresPerIp: number;
  windowMinutes: number;
}

/**
 * Failed sign-ins counted in Redis (shared by every panel pod) per email — the user's account — and per client
 * address. Over either limit, sign-in is refused before the password is even checked, until the window passes.
 */
export function createLoginThrottle(options: LoginThrottleOptions) {
  const duration = options.windowMinutes * 60;
  const perEmail = new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix: `${options.keyPrefix}:panel-login:email`,
    points: options.maxFailuresPerEmail,
    duration,
  });
  const perIp = new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix: `${options.keyPrefix}:panel-login:ip`,
    points: options.maxFailuresPerIp,
    duration,
  });

  const blockedFor = async (limiter: RateLimiterRedis, key: string, points: number): Promise<number> => {
    const state = await limiter.get(key);
    return state && state.consumedPoints >= points ? Math.ceil(state.msBeforeNext / 1000) : 0;
  };

  return {
    /** Seconds until another attempt is allowed (0: allowed now). */
    async retryAfterSeconds(email: string, ip: string): Promise<number> {
      const [byEmail, byIp] = await Promise.all([
        blockedFor(perEmail, email, options.maxFailuresPerEmail),
        blockedFor(perIp, ip, options.maxFailuresPerIp),
      ]);
      return Math.max(byEmail, byIp);
    },
    async recordFailure(email: string, ip: string): Promise<void> {
      const consume = (limiter: RateLimiterRedis, key: string) =>
        limiter.consume(key).catch((rejection: unknown) => {
          // Over the limit is the expected outcome here; anything else (Redis down) propagates.
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
        });
      await Promise.all([consume(perEmail, email), consume(perIp, ip)]);
    },
    async recordSuccess(email: string): Promise<void> {
      await perEmail.delete(email);
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
