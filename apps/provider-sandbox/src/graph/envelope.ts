import { shown, type JsonRecord } from "../json.ts";
import { MetaError } from "./errors.ts";

/**
 * What every body of POST /{phone-number-id}/messages carries, whichever call it is (a send, or a mark-as-read and
 * typing indicator): `messaging_product: "whatsapp"`, else Meta's code 100.
 */
export function checkMessagingProduct(body: JsonRecord): void {
  if (body.messaging_product === undefined) throw new MetaError(100, "The parameter messaging_product is required.");
  if (body.messaging_product !== "whatsapp") {
    throw new MetaError(
      100,
      `Param messaging_product must be one of {WHATSAPP} - got "${shown(body.messaging_product)}".`,
    );
  }
}
