import { normalizePhone } from "./normalize.ts";

/** POST /public/v1/validate (spec 4.2): `valid=false` is an answer, not an error. */
export function validatePhone(input: { to: string; country?: string | null | undefined }) {
  const phone = normalizePhone(input.to, input.country);
  return {
    to: phone.digits,
    valid: phone.valid,
    country: phone.country,
    type: phone.type,
    e164: phone.e164,
    national_format: phone.nationalFormat,
  };
}
