import { isBsuid, isParentBsuid } from "@gw/contracts";
import type { GraphRecipient } from "@gw/meta";
import { normalizePhone, type NormalizedPhone } from "../phones/normalize.ts";

/**
 * Who a send, a window check or a campaign row names: a phone number (any formatting), or a business-scoped user id
 * (BSUID) of a user Meta knows only by it. A BSUID goes to Meta whole and unchanged (meta-2026 §1.2).
 */
export type Recipient =
  | { kind: "phone"; phone: NormalizedPhone; identifier: string }
  | { kind: "bsuid"; parent: boolean; identifier: string };

/** The identifier a recipient is stored and looked up by: a phone's digits (country code first), or the BSUID. */
export type RecipientParse = Recipient | { kind: "invalid"; identifier: string };

/**
 * Read `raw` as a BSUID when it is written as one (two letters and a dot: never a phone number), else as a phone
 * number against the numbering plan (`country` for a national number, BR when absent).
 */
export function parseRecipient(raw: string, country?: string | null): RecipientParse {
  const trimmed = raw.trim();
  if (isBsuid(trimmed)) return { kind: "bsuid", parent: isParentBsuid(trimmed), identifier: trimmed };
  const phone = normalizePhone(trimmed, country);
  if (!phone.valid) return { kind: "invalid", identifier: phone.digits || trimmed };
  return { kind: "phone", phone, identifier: phone.digits };
}

/** Whether a stored identifier (a recipient's or a contact key) is a BSUID rather than a phone's digits. */
export function isBsuidIdentifier(identifier: string): boolean {
  return isBsuid(identifier);
}

/**
 * Where a send's recipient goes in Meta's request (meta-2026 §1.6): a phone in `to`, a BSUID or parent BSUID in
 * `recipient`, never a BSUID in `to`.
 */
export function graphRecipient(identifier: string): GraphRecipient {
  return isBsuid(identifier) ? { recipient: identifier } : { to: identifier };
}
