import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

/**
 * How every send from a business number is paced (docs/decisions.md, "Campaigns"). The number's turns are kept in
 * Redis by one Lua script (GCRA: the time of the number's next free turn, one turn every 1/rate s, no burst), so
 * every API and worker pod shares them and never more than the rate leaves in any second. A caller takes a turn up
 * to `maxQueueMs` ahead and waits for it; further ahead it is refused with the exact wait.
 */
export interface ThroughputPolicy {
  /**
   * Turns are spaced for this much less than the rate (0.1: 90 %), so a send delayed on its way to Meta by up to
   * headroom × 1 s (100 ms) still never makes any second at Meta hold more than the rate.
   */
  headroom: number;
  /** A turn is good for this long: a send later than that (its process was busy) takes a new one. */
  lateTurnMs: number;
  /** A public-API send waits for a turn at most this far ahead; beyond, 429 `rate_limited` with Retry-After. */
  apiMaxQueueMs: number;
  /**
   * A campaign send takes a turn only when less than this is queued ahead of it, so a campaign never fills the
   * number's queue and public-API sends keep their room in front of it.
   */
  campaignMaxQueueMs: number;
  /** Longest a campaign send waits for its turn before giving up (the recipient is put back in the queue). */
  campaignMaxWaitMs: number;
  /** On Meta's 130429 the number's effective rate is multiplied by this... */
  backoffFactor: number;
  /** ...down to this fraction of its configured rate. */
  minFactor: number;
  /** After each quiet period of this length the effective rate goes up by `recoveryStep` of the configured one. */
  cooldownMs: number;
  recoveryStep: number;
  /** On 130429 the number also sends nothing for this long (Meta's window is one second). */
  throttlePauseMs: number;
  /** On 131056 (pair rate) the recipient gets nothing from this number for this long. */
  pairSpacingMs: number;
}

export const DEFAULT_THROUGHPUT_POLICY: ThroughputPolicy = {
  headroom: 0.1,
  lateTurnMs: 25,
  apiMaxQueueMs: 1_000,
  campaignMaxQueueMs: 250,
  campaignMaxWaitMs: 10_000,
  backoffFactor: 0.5,
  minFactor: 0.0625,
  cooldownMs: 10_000,
  recoveryStep: 0.25,
  throttlePauseMs: 1_000,
  pairSpacingMs: 6_000,
};

export type Turn =
  | {
      granted: true;
      /** Wait this long, then send (after `stillValid`, when waiting). */
      waitMs: number;
      factor: number;
      /** When the turn was given (Redis clock, ms): a 130429 after it voids it. */
      grantedAt: number;
    }
  | { granted: false; retryAfterMs: number; reason: "number" | "recipient"; factor: number };

export interface TakeTurnInput {
  phoneNumberId: string;
  /** The number's configured rate (business_numbers.messaging_rate_per_second). */
  ratePerSecond: number;
  /**
   * The recipient, digits only: a recipient being spaced out (131056) is refused at once. Absent for a call that
   * sends the recipient no message (a read receipt), which no pair limit concerns.
   */
  to?: string | undefined;
  maxQueueMs: number;
}

export interface NumberThroughputState {
  /** Fraction of the configured rate in force (1 = no back-off). */
  factor: number;
  /** How far ahead the number's next free turn is. */
  queuedMs: number;
}

/** How a send meets a number that is at its rate: the public API refuses it (429), a campaign waits. */
export type Pacing = "refuse" | "wait";

/**
 * Told how each send met its number's pacing (`takeSendTurn`), for the process's metrics: how long it waited for its
 * turn, or why it was refused. Never throws into the send.
 */
export interface PacingObserver {
  /** The turn came after `waitedMs` in all (turn waits, re-takes and a campaign's waits for room included). */
  waited(pacing: Pacing, waitedMs: number): void;
  /** No turn: the number is at its rate (`number`) or the recipient is being spaced out after 131056 (`recipient`). */
  refused(pacing: Pacing, reason: "number" | "recipient"): void;
}

export interface NumberThroughput {
  readonly policy: ThroughputPolicy;
  /** Told how each send met the pacing (a process's metrics); absent, nobody is. */
  readonly observer?: PacingObserver | undefined;
  take(input: TakeTurnInput): Promise<Turn>;
  /**
   * False when Meta throttled the number after the turn was given: sends that were waiting for their turn then
   * take a new one (at the slower rate, after the pause) instead of all going out into the throttle.
   */
  stillValid(phoneNumberId: string, grantedAt: number): Promise<boolean>;
  /** Meta answered 130429: slow the number down (once per second however many sends hear it); the new factor. */
  noteThrottled(phoneNumberId: string): Promise<number>;
  /** Meta answered 131056: space this recipient out; how long it waits, in ms. */
  notePairLimited(phoneNumberId: string, to: string): Promise<number>;
  state(phoneNumberId: string): Promise<NumberThroughputState>;
}

// One script for every operation, so each is atomic against the others and they all read one clock (Redis' TIME,
// the same for every pod). KEYS[1]: the number's hash {tat: next free turn (ms), f: back-off factor, c: when f was
// set}; KEYS[2]: the recipient's spacing (ms until which it waits). Replies are integers (Lua numbers would be cut).
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local mode = ARGV[1]
local rate0 = tonumber(ARGV[2])
local maxq = tonumber(ARGV[3])
local cooldown = tonumber(ARGV[4])
local step = tonumber(ARGV[5])
local minf = tonumber(ARGV[6])
local backoff = tonumber(ARGV[7])
local spacing = tonumber(ARGV[8])
local ttl = tonumber(ARGV[9])
local pause = tonumber(ARGV[10])
local s = redis.call('HMGET', KEYS[1], 'tat', 'f', 'c', 'cd', 'st')
local tat = tonumber(s[1]) or 0
local f = tonumber(s[2])
local c = tonumber(s[3]) or now
local fac = 1
-- Recovery follows the settings of whoever backed the number off, so every pod reads the same factor.
if f then fac = math.min(1, f + (tonumber(s[5]) or step) * math.floor((now - c) / (tonumber(s[4]) or cooldown))) end
if mode == 'take' then
  local pair = tonumber(redis.call('GET', KEYS[2]) or '0')
  if pair > now then return {0, math.ceil(pair - now), 'recipient', math.floor(fac * 1000)} end
  local start = math.max(tat, now)
  local wait = start - now
  if wait > maxq then return {0, math.ceil(wait - maxq), 'number', math.floor(fac * 1000)} end
  local rate = math.max(0.1, rate0 * fac)
  redis.call('HSET', KEYS[1], 'tat', string.format('%.3f', start + 1000 / rate))
  if f and fac >= 1 then redis.call('HDEL', KEYS[1], 'f', 'c', 'cd', 'st') end
  redis.call('PEXPIRE', KEYS[1], ttl)
  return {1, math.floor(wait), 'ok', math.floor(fac * 1000), math.floor(now)}
elseif mode == 'throttled' then
  if f and now - c < 1000 then return {math.floor(fac * 1000)} end
  local nf = math.max(minf, fac * backoff)
  redis.call('HSET', KEYS[1], 'f', string.format('%.6f', nf), 'c', string.format('%.3f', now),
    'cd', cooldown, 'st', step, 'tat', string.format('%.3f', math.max(tat, now + pause)))
  redis.call('PEXPIRE', KEYS[1], ttl)
  return {math.floor(nf * 1000)}
elseif mode == 'confirm' then
  if f and c >= rate0 then return {0} end
  return {1}
elseif mode == 'pair' then
  redis.call('SET', KEYS[2], string.format('%.3f', now + spacing), 'PX', spacing)
  return {spacing}
end
return {math.floor(fac * 1000), math.max(0, math.ceil(tat - now))}
`;
const SCRIPT_SHA = createHash("sha1").update(SCRIPT).digest("hex");

export interface ThroughputOptions {
  redis: Redis;
  keyPrefix: string;
  policy?: Partial<ThroughputPolicy>;
  observer?: PacingObserver;
}

type Reply = (number | string)[];

export function createNumberThroughput(options: ThroughputOptions): NumberThroughput {
  const policy: ThroughputPolicy = { ...DEFAULT_THROUGHPUT_POLICY, ...options.policy };
  const { redis } = options;
  // Long enough for a backed-off number to recover on its own; an idle number's state then goes away.
  const stateTtlMs = Math.max(60_000, Math.ceil(policy.cooldownMs * (1 / policy.recoveryStep + 2)));
  // The hash tag keeps a number's keys in one slot (Redis Cluster runs a script over one slot only).
  const numberKey = (phoneNumberId: string) => `${options.keyPrefix}:tp:{${phoneNumberId}}`;
  const pairKey = (phoneNumberId: string, to: string) => `${numberKey(phoneNumberId)}:to:${to}`;

  async function run(mode: string, keys: [string, string], rate = 0, maxQueueMs = 0): Promise<Reply> {
    const args = [
      mode,
      rate,
      maxQueueMs,
      policy.cooldownMs,
      policy.recoveryStep,
      policy.minFactor,
      policy.backoffFactor,
      policy.pairSpacingMs,
      stateTtlMs,
      policy.throttlePauseMs,
    ];
    try {
      return (await redis.evalsha(SCRIPT_SHA, 2, ...keys, ...args)) as Reply;
    } catch (error) {
      // A restarted (or flushed with SCRIPT FLUSH) Redis no longer has it: send it once more.
      if (!(error instanceof Error) || !error.message.includes("NOSCRIPT")) throw error;
      return (await redis.eval(SCRIPT, 2, ...keys, ...args)) as Reply;
    }
  }

  return {
    policy,
    observer: options.observer,
    async take(input) {
      const [granted, ms, reason, factor, grantedAt] = await run(
        "take",
        [
          numberKey(input.phoneNumberId),
          input.to === undefined ? `${numberKey(input.phoneNumberId)}:none` : pairKey(input.phoneNumberId, input.to),
        ],
        input.ratePerSecond * (1 - policy.headroom),
        input.maxQueueMs,
      );
      const fraction = Number(factor) / 1000;
      if (Number(granted) === 1)
        return { granted: true, waitMs: Number(ms), factor: fraction, grantedAt: Number(grantedAt) };
      return {
        granted: false,
        retryAfterMs: Number(ms),
        reason: reason === "recipient" ? "recipient" : "number",
        factor: fraction,
      };
    },
    async stillValid(phoneNumberId, grantedAt) {
      const [valid] = await run("confirm", [numberKey(phoneNumberId), `${numberKey(phoneNumberId)}:none`], grantedAt);
      return Number(valid) === 1;
    },
    async noteThrottled(phoneNumberId) {
      const [factor] = await run("throttled", [numberKey(phoneNumberId), `${numberKey(phoneNumberId)}:none`]);
      return Number(factor) / 1000;
    },
    async notePairLimited(phoneNumberId, to) {
      const [spacing] = await run("pair", [numberKey(phoneNumberId), pairKey(phoneNumberId, to)]);
      return Number(spacing);
    },
    async state(phoneNumberId) {
      const [factor, queued] = await run("peek", [numberKey(phoneNumberId), `${numberKey(phoneNumberId)}:none`]);
      return { factor: Number(factor) / 1000, queuedMs: Number(queued) };
    },
  };
}
