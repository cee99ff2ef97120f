import { RequestValidationError } from "@gw/contracts";

/**
 * A `phone_number_id` that is not one of the account's numbers: an invalid value of the request (spec 4.3 lists no
 * 404 for the window, and the conversation operations answer it alike), at the field where it was given.
 */
export function unknownNumber(phoneNumberId: string | undefined, where: "body" | "query"): RequestValidationError {
  return new RequestValidationError([
    {
      loc: [where, "phone_number_id"],
      msg: "O número não está conectado a esta conta.",
      type: "value_error",
      input: phoneNumberId,
    },
  ]);
}
