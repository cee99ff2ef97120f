// Full ("max") metadata: validates area codes and number lengths, not just the country's possible lengths.
import { parsePhoneNumberFromString, type CountryCode, type PhoneNumber } from "libphonenumber-js/max";

export interface NormalizedPhone {
  /** Digits only: country code + national number when valid, the input's digits otherwise. */
  digits: string;
  valid: boolean;
  country: string | null;
  type: string | null;
  e164: string | null;
  nationalFormat: string | null;
}

const DEFAULT_COUNTRY: CountryCode = "BR";

function toResult(phone: PhoneNumber): NormalizedPhone {
  return {
    digits: phone.number.slice(1),
    valid: true,
    country: phone.country ?? null,
    type: phone.getType()?.toLowerCase() ?? null,
    e164: phone.number,
    nationalFormat: phone.formatNational(),
  };
}

function tryParse(text: string, country?: CountryCode): PhoneNumber | undefined {
  const phone = parsePhoneNumberFromString(text, country ? { defaultCountry: country } : undefined);
  return phone?.isValid() ? phone : undefined;
}

/**
 * WhatsApp accounts created before Brazil added the 9th mobile digit keep a 12-digit id (55 + area code +
 * 8 digits starting 6-9), and Meta reports that id as `from`. The number itself has the 9 now; with it the
 * contact is the same one the integrator will send to, and Meta delivers to it.
 */
function withBrazilianNinthDigit(international: string): string | null {
  const old = /^55([1-9]{2})([6-9]\d{7})$/.exec(international);
  return old ? `55${old[1]}9${old[2]}` : null;
}

/**
 * Validate and normalize a phone number against the numbering plan (spec 4.2).
 * `+`/`00` prefixed input is international; otherwise it is read as national to `country` (BR when absent),
 * and, failing that, as digits that already start with a country code (e.g. "5511987654321").
 * Brazilian mobiles need the 9th digit: the plan has no 8-digit mobile numbers since 2016. The one exception
 * is the 12-digit international form WhatsApp still uses as the id of older accounts (see above).
 */
export function normalizePhone(input: string, country?: string | null): NormalizedPhone {
  const trimmed = input.trim();
  const digits = trimmed.replace(/\D/g, "");
  const invalid: NormalizedPhone = {
    digits,
    valid: false,
    country: null,
    type: null,
    e164: null,
    nationalFormat: null,
  };
  if (digits.length === 0 || digits.length > 15 || /[A-Za-z]/.test(trimmed)) return invalid;

  // An empty or blank country (as web forms post it) means "not given": BR.
  const given = country?.trim() ? (country.trim().toUpperCase() as CountryCode) : undefined;
  const region = given ?? DEFAULT_COUNTRY;
  if (/^(\+|00)/.test(trimmed)) {
    const withCode = trimmed.startsWith("00") ? digits.slice(2) : digits;
    const phone = tryParse(`+${withBrazilianNinthDigit(withCode) ?? withCode}`);
    return phone ? toResult(phone) : invalid;
  }
  const national = tryParse(digits, region);
  if (national) return toResult(national);
  const withCode = withBrazilianNinthDigit(digits) ?? digits;
  const international = withCode.length >= 8 ? tryParse(`+${withCode}`) : undefined;
  if (international && (!given || international.country === region)) return toResult(international);
  return invalid;
}
