/**
 * WhatsApp users are named by a phone number or, since 2026, by a business-scoped user id (BSUID): an ISO 3166
 * alpha-2 country, a dot and 1–128 letters or digits (`BR.1502576394655843`); a parent BSUID has `ENT` in the middle
 * (`BR.ENT.11815799212886844830`). Meta's rule: send the whole value back unchanged. The body is alphanumeric, not
 * only digits (meta-2026 §1.2).
 */
export const BSUID_PATTERN = /^[A-Z]{2}\.(?:ENT\.)?[A-Za-z0-9]{1,128}$/;
/** Only a parent BSUID. */
export const PARENT_BSUID_PATTERN = /^[A-Z]{2}\.ENT\.[A-Za-z0-9]{1,128}$/;
/** The longest BSUID: 2 + 1 + 4 + 128 characters. */
export const BSUID_MAX_LENGTH = 135;

/** Whether `value` is written as a BSUID (or a parent BSUID) — a phone number never has a dot after two letters. */
export function isBsuid(value: string): boolean {
  return BSUID_PATTERN.test(value);
}

export function isParentBsuid(value: string): boolean {
  return PARENT_BSUID_PATTERN.test(value);
}

/** Two letters and a dot: what only a BSUID starts with (a phone number never has letters). */
const BSUID_ATTEMPT = /^[A-Za-z]{2}\./;

/** Written as a BSUID but not a valid one (a phone number never starts with two letters and a dot). */
export function isMalformedBsuid(value: string): boolean {
  return BSUID_ATTEMPT.test(value.trim()) && !isBsuid(value.trim());
}
