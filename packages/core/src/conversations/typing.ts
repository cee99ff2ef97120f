import type { Redis } from "ioredis";

/**
 * How long Meta shows a typing indicator when no reply dismisses it (meta-2026 §4): another one inside this time,
 * for the same message, would show nothing new.
 */
export const TYPING_INDICATOR_MS = 25_000;

/** The message a typing indicator is shown for: its conversation (number and contact) and its place in it. */
export interface TypingTarget {
  phoneNumberId: string;
  contactKey: string;
  wamid: string;
  /** When the contact sent it (Meta's timestamp). */
  occurredAt: Date;
}

export type TypingClaim = { granted: true; release: () => Promise<void> } | { granted: false; retryAfterMs: number };

/**
 * One typing indicator per conversation at a time (docs/decisions.md, "Read receipts and typing"): Meta asks to show
 * one only when a reply is coming and to rate-limit it per conversation. A new one is allowed once the previous one
 * has expired (TYPING_INDICATOR_MS), or for a message NEWER than the one it was shown for (the contact wrote again:
 * a new reply is coming). The same or an older message within the window is refused with the time left.
 */
export interface TypingLimiter {
  claim(target: TypingTarget): Promise<TypingClaim>;
}

// KEYS[1]: the conversation's indicator, "<occurred ms> <wamid>" of the message it was shown for. A message of the
// same second but another wamid counts as newer (Meta's timestamps are whole seconds: a contact's two quick messages
// share one). ARGV: occurred ms, wamid, window ms. Reply: 0 granted, else the ms left (at least 1).
const CLAIM = `
local shown = redis.call('GET', KEYS[1])
if shown then
  local sep = string.find(shown, ' ', 1, true)
  local at = tonumber(string.sub(shown, 1, sep - 1))
  local this = tonumber(ARGV[1])
  if this < at or (this == at and string.sub(shown, sep + 1) == ARGV[2]) then
    return math.max(1, redis.call('PTTL', KEYS[1]))
  end
end
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[2], 'PX', ARGV[3])
return 0
`;

// Undo a claim whose indicator never reached the contact (refused before or by Meta), only if it is still ours.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export function createTypingLimiter(options: { redis: Redis; keyPrefix: string; windowMs?: number }): TypingLimiter {
  const windowMs = options.windowMs ?? TYPING_INDICATOR_MS;
  // The hash tag keeps a number's keys in one Redis Cluster slot, as the pacing's do.
  const keyOf = (target: TypingTarget) => `${options.keyPrefix}:typing:{${target.phoneNumberId}}:${target.contactKey}`;
  return {
    async claim(target) {
      const key = keyOf(target);
      const value = `${target.occurredAt.getTime()} ${target.wamid}`;
      const left = Number(await options.redis.eval(CLAIM, 1, key, target.occurredAt.getTime(), target.wamid, windowMs));
      if (left > 0) return { granted: false, retryAfterMs: left };
      return {
        granted: true,
        release: async () => {
          await options.redis.eval(RELEASE, 1, key, value);
        },
      };
    },
  };
}
