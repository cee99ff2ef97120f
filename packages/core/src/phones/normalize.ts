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
 * Validate and normalize a phone number against the numbering plan (spec 4.2).
 * `+`/`00` prefixed input is international; otherwise it is read as national to `country` (BR when absent),
 * and, failing that, as digits that already start with a country code (e.g. "5511987654321").
 * Brazilian mobiles need the 9th digit: the plan has no 8-digit mobile numbers since 2016.
 */
export function normalizePhone(input: string, country?: string | null): NormalizedPhone {
  const trimmed = input.trim();
  const digits = trimmed.replace(/\D/g, "");
  const invalid: NormalizedPhone = { digits, valid: false, country: null, type: null, e164: null, nationalFormat: null };
  if (digits.length === 0 || digits.length > 15 || /[A-Za-z]/.test(trimmed)) return invalid;

  const region = (country?.toUpperCase() as CountryCode | undefined) ?? DEFAULT_COUNTRY;
  if (/^(\+|00)/.test(trimmed)) {
    const phone = tryParse(`+${trimmed.startsWith("00") ? digits.slice(2) : digits}`);
    return phone ? toResult(phone) : invalid;
  }
  const national = tryParse(digits, region);
  if (national) return toResult(national);
  const international = digits.length >= 8 ? tryParse(`+${digits}`) : undefined;
  if (international && (!country || international.country === region)) return toResult(international);
  return invalid;
}
