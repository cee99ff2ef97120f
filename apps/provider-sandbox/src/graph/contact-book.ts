import type { SandboxState } from "../state.ts";
import { BSUID_PATTERN, findByUserId, PARENT_BSUID_PATTERN, portfolioOf, setInContactBook } from "../users.ts";
import { MetaError, type GraphResult } from "./errors.ts";

/**
 * DELETE /{version}/{phone-number-id}/contact_book?messaging_product=whatsapp&bsuid=<BSUID> (meta-2026 §1.3): takes
 * a user out of the number's portfolio contact book, so its phone leaves webhooks again unless the 30-day rule
 * holds. Parent BSUIDs are refused (Meta); a BSUID that is not in the book answers `deleted: false` (assumed).
 */
export function deleteContactBookEntry(state: SandboxState, phoneNumberId: string, url: URL): GraphResult {
  try {
    const product = url.searchParams.get("messaging_product");
    if (product === null) throw new MetaError(100, "The parameter messaging_product is required.");
    if (product !== "whatsapp")
      throw new MetaError(100, `Param messaging_product must be one of {WHATSAPP} - got "${product}".`);
    const bsuid = url.searchParams.get("bsuid");
    if (bsuid === null || bsuid === "") throw new MetaError(100, "The parameter bsuid is required.");
    if (PARENT_BSUID_PATTERN.test(bsuid)) throw new MetaError(100, "Parent BSUIDs are not supported by this endpoint.");
    if (!BSUID_PATTERN.test(bsuid))
      throw new MetaError(100, `Invalid Business-scoped User ID (BSUID) in parameter bsuid: ${bsuid}`);
    const portfolio = portfolioOf(state, phoneNumberId);
    const user = findByUserId(state, bsuid, portfolio);
    const deleted = user ? setInContactBook(state, portfolio, user.key, false) : false;
    return { status: 200, body: { messaging_product: "whatsapp", success: true, deleted } };
  } catch (error) {
    if (!(error instanceof MetaError)) throw error;
    return error.toResult();
  }
}
