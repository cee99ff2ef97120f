import { isBsuid } from "@gw/contracts";
import { normalizePhone } from "./normalize.ts";

/**
 * POST /public/v1/validate (spec 4.2): `valid=false` is an answer, not an error. A business-scoped user id (BSUID)
 * is answered as such (`kind: "bsuid"`): valid by its format, its country the prefix Meta gives it; whether it names
 * a user only Meta knows.
 */
export function validatePhone(input: { to: string; country?: string | null | undefined }) {
  const to = input.to.trim();
  if (isBsuid(to))
    return {
      to,
      valid: true,
      kind: "bsuid" as const,
      country: to.slice(0, 2),
      type: null,
      e164: null,
      national_format: null,
    };
  const phone = normalizePhone(input.to, input.country);
  return {
    to: phone.digits,
    valid: phone.valid,
    kind: "phone" as const,
    country: phone.country,
    type: phone.type,
    e164: phone.e164,
    national_format: phone.nationalFormat,
  };
}
