import type { Sql } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { AccountDirectory } from "../accounts/directory.ts";
import { contactKeyOf } from "../contacts/contacts.ts";
import { parseRecipient } from "../contacts/recipient.ts";

/**
 * The conversation an API call names (`/conversations/{recipient}`): the business number (`phoneNumberId`, else the
 * account's default), the recipient as a send takes it and its contact key. `unknown_number` when the named number is
 * not the account's (the edge's validation error); refused when the account has no number, or, unless `anyRecipient`,
 * when the recipient is no valid phone or BSUID (a read answers that one as a contact it never heard of).
 */
export type AddressedConversation =
  | { kind: "found"; phoneNumberId: string; identifier: string; contactKey: string }
  | { kind: "unknown_number" }
  | { kind: "refused"; error: ApiError };

export async function addressConversation(
  deps: { db: { sql: Sql }; directory: Pick<AccountDirectory, "resolveNumber"> },
  input: { accountId: string; recipient: string; phoneNumberId?: string | undefined; anyRecipient?: boolean },
): Promise<AddressedConversation> {
  const number = await deps.directory.resolveNumber(input.accountId, input.phoneNumberId);
  if (!number)
    return input.phoneNumberId
      ? { kind: "unknown_number" }
      : { kind: "refused", error: new ApiError("no_connected_number") };
  const recipient = parseRecipient(input.recipient);
  if (recipient.kind === "invalid" && !input.anyRecipient)
    return { kind: "refused", error: new ApiError("invalid_recipient") };
  const identifier = recipient.identifier;
  const contactKey = await contactKeyOf(deps.db.sql, { accountId: input.accountId, identifier });
  return { kind: "found", phoneNumberId: number.phoneNumberId, identifier, contactKey };
}
