import type { Sql } from "@gw/db";
import { ApiError } from "@gw/errors";

/*
 * A reaction goes to a message the contact sent to this number (Meta: "a message you received from that user"),
 * within 30 days (docs/decisions.md, "Reactions only to the contact's messages, within 30 days, never quoting"). Meta
 * accepts any other target and fails it later (131009); one lookup on the unique wamid turns that into a clear 422
 * before Meta.
 */

/** Meta does not deliver reactions to messages older than this. */
export const REACTION_MAX_AGE_MS = 30 * 24 * 3_600_000;

const TOO_OLD =
  "A mensagem foi recebida há mais de 30 dias; o WhatsApp não entrega reações a mensagens com mais de 30 dias.";

/** `reaction_target_not_found` unless the wamid is an inbound message of this contact on this number; too old: `message_too_old`. */
export async function checkReactionTarget(
  sql: Sql,
  input: { accountId: string; phoneNumberId: string; contactKey: string; messageId: string; now?: Date },
): Promise<void> {
  const { rows } = await sql.query<{ occurred_at: Date }>({
    name: "reaction-target",
    text: `SELECT occurred_at FROM inbound_messages
      WHERE wamid = $1 AND account_id = $2::uuid AND phone_number_id = $3 AND contact_key = $4`,
    values: [input.messageId, input.accountId, input.phoneNumberId, input.contactKey],
  });
  const target = rows[0];
  if (!target) throw new ApiError("reaction_target_not_found");
  const now = input.now ?? new Date();
  if (now.getTime() - target.occurred_at.getTime() > REACTION_MAX_AGE_MS)
    throw new ApiError("message_too_old", { message: TOO_OLD });
}
