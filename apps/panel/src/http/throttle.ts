import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { Redis } from "ioredis";
import { clientAddressKey } from "@gw/http";

export interface LoginThrottleOptions {
  redis: Redis;
  keyPrefix: string;
  maxFailuresPerEmail: number;
  maxFailuresPerIp: number;
  windowMinutes: number;
}

/** A password check the throttle allowed: one point taken from the email's and the address's budgets. */
export interface PasswordAttempt {
  /** The password was right: the points go back (a success never counts as a failure). */
  succeeded(options?: { clearEmail?: boolean }): Promise<void>;
}

export type AttemptAdmission =
  { admitted: true; attempt: PasswordAttempt } | { admitted: false; retryAfterSeconds: number };

/**
 * Password checks (sign-in, and the re-entries that guard sensitive actions) counted in Redis, shared by every panel
 * pod, per email — the user's account — and per client address (IPv6 by its /64). A point is taken atomically
 * BEFORE the password is checked and given back on success, so N parallel guesses against a budget of B run at most
 * B checks (reading the count, checking, then counting let every one of 200 parallel guesses through). Over either
 * budget, the password is not checked until the window passes.
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

  return {
    /** Takes the attempt's points before the check; a refused attempt gives them back (it checks nothing). */
    async admit(email: string, ip: string): Promise<AttemptAdmission> {
      const address = clientAddressKey(ip);
      // consume() is one Redis script each: the count and the decision are one step, whatever runs alongside.
      const [byEmail, byIp] = await Promise.allSettled([perEmail.consume(email), perIp.consume(address)]);
      const refused = [byEmail, byIp].flatMap((result) =>
        result.status === "rejected" && result.reason instanceof RateLimiterRes ? [result.reason] : [],
      );
      const failure = [byEmail, byIp].find(
        (result): result is PromiseRejectedResult =>
          result.status === "rejected" && !(result.reason instanceof RateLimiterRes),
      );
      if (failure || refused.length > 0) {
        // Refused: both points go back, the refused budget's too (its count rose past the limit all the same), so
        // the counts hold only checks that ran. A refusal then costs neither budget, and a flood refused by one
        // budget does not lift the other past its limit. Overlapping points only ever refuse more, never admit more.
        const taken = (result: PromiseSettledResult<RateLimiterRes>) =>
          result.status === "fulfilled" || result.reason instanceof RateLimiterRes;
        await Promise.all([
          taken(byEmail) ? perEmail.reward(email, 1) : null,
          taken(byIp) ? perIp.reward(address, 1) : null,
        ]);
        // Anything but "over the limit" (Redis down) propagates, and no password is checked.
        if (failure) throw failure.reason;
        const waitMs = Math.max(...refused.map((res) => res.msBeforeNext));
        return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
      }
      return {
        admitted: true,
        attempt: {
          async succeeded({ clearEmail = false } = {}) {
            // A sign-in clears the email's failures (the user is back); a confirmation only returns its point.
            await Promise.all([
              clearEmail ? perEmail.delete(email) : perEmail.reward(email, 1),
              perIp.reward(address, 1),
            ]);
          },
        },
      };
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;

/** "Tente de novo em N minutos", for a refusal's Retry-After. */
export function retryInMinutes(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return `Tente de novo em ${minutes} minuto${minutes > 1 ? "s" : ""}.`;
}
