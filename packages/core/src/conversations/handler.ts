import type { ConversationHandlerValue, ConversationHandlerView, ConversationUpdatedData } from "@gw/contracts";
import { inTransaction, type Db, type Sql } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { Logger } from "@gw/logger";
import type { AccountDirectory } from "../accounts/directory.ts";
import { recordAuditAs, type Actor } from "../audit/audit.ts";
import type { Outbox } from "../deliveries/attempt/outbox.ts";
import { addressConversation } from "./address.ts";
import { conversationState, conversationUpdated } from "./updated.ts";

/**
 * A bot and a person, one conversation (issue 39; docs/decisions.md, "Conversations: the bot and the person"): each
 * customer's conversation on a business number has a handler on the business's side, the integrator's bot (the
 * default) or a person. The bot hands it to a person and the person gives it back (POST
 * /conversations/{recipient}/handover); a person's hold lapses back to the bot after the account's timeout
 * (accounts.human_handler_timeout_minutes, 24 h by default) without a new handover. Kept in `conversations` beside
 * the Meta thread's holder (thread.ts); a conversation without a row is the bot's.
 */

/** The handler of the conversation of `contactKey` on the number (the bot's when nothing was handed over). */
export async function readHandler(
  sql: Sql,
  input: { accountId: string; phoneNumberId: string; contactKey: string },
): Promise<ConversationHandlerView> {
  return (await conversationState(sql, input)).handler;
}

export interface HandoverDeps {
  db: Db;
  directory: Pick<AccountDirectory, "resolveNumber">;
  /** Queues the `conversation.updated` deliveries after the commit that wrote them. */
  outbox: Outbox;
  logger: Logger;
}

export type HandoverOutcome =
  | { kind: "done"; recipient: string; phoneNumberId: string; handler: ConversationHandlerView }
  | { kind: "unknown_number" }
  | { kind: "refused"; error: ApiError };

/**
 * Hand a customer's conversation to a person (`to: human`) or back to the bot (`to: bot`). Recorded, audited
 * (`<origin>.conversation.handover`) and announced as `conversation.updated` to the integrations that chose it, in
 * one transaction; the deliveries are queued after it. Handing it to whom already has it is recorded again (the
 * note and the time are the new ones), so a person's hold can be renewed.
 */
export async function handOverConversation(
  deps: HandoverDeps,
  input: {
    accountId: string;
    recipient: string;
    phoneNumberId?: string | undefined;
    to: ConversationHandlerValue;
    note?: string | undefined;
    actor: Actor;
    by: ConversationUpdatedData["by"];
    now?: Date;
  },
): Promise<HandoverOutcome> {
  const conversation = await addressConversation(deps, input);
  if (conversation.kind !== "found") return conversation;
  const { phoneNumberId, identifier, contactKey } = conversation;
  const at = input.now ?? new Date();
  const note = input.note ?? null;
  const committed = await inTransaction(deps.db.sql, async (client) => {
    await client.query({
      name: "conversation-handover",
      text: `INSERT INTO conversations (account_id, phone_number_id, contact_key, handler, handler_note,
          handler_changed_at)
        VALUES ($1::uuid, $2, $3, $4, $5, $6)
        ON CONFLICT (account_id, contact_key, phone_number_id) DO UPDATE SET handler = EXCLUDED.handler,
          handler_note = EXCLUDED.handler_note, handler_changed_at = EXCLUDED.handler_changed_at`,
      values: [input.accountId, phoneNumberId, contactKey, input.to, note, at],
    });
    await recordAuditAs(client, input, "conversation.handover", {
      target: `conversation:${phoneNumberId}:${contactKey}`,
      details: { to: input.to, note, recipient: identifier },
    });
    return conversationUpdated(client, {
      accountId: input.accountId,
      phoneNumberId,
      contactKey,
      recipient: identifier,
      change: "handover",
      by: input.by,
      at,
    });
  });
  await deps.outbox.dispatch(committed);
  deps.logger.info("conversation handed over", {
    accountId: input.accountId,
    phoneNumberId,
    to: input.to,
  });
  return {
    kind: "done",
    recipient: identifier,
    phoneNumberId,
    handler: { value: input.to, since: at.toISOString(), note },
  };
}

/**
 * A person answered the customer from the panel (issue 39): the person is the handler from now on, and the hold's
 * timeout counts from this reply. Announced (`handover`, by the panel) only when the handler was the bot.
 */
export async function personAnswered(
  deps: { db: Db; outbox: Outbox },
  input: { accountId: string; phoneNumberId: string; contactKey: string; recipient: string; at?: Date },
): Promise<void> {
  const at = input.at ?? new Date();
  const committed = await inTransaction(deps.db.sql, async (client) => {
    const { rows } = await client.query<{ was: "bot" | "human" | null }>({
      name: "conversation-person-answered",
      text: `WITH before AS (SELECT gateway_conversation_handler($1::uuid, $2, $3) AS was)
        INSERT INTO conversations AS c (account_id, phone_number_id, contact_key, handler, handler_changed_at)
        VALUES ($1::uuid, $2, $3, 'human', $4)
        ON CONFLICT (account_id, contact_key, phone_number_id) DO UPDATE SET handler = 'human',
          handler_changed_at = EXCLUDED.handler_changed_at
        RETURNING (SELECT was FROM before)`,
      values: [input.accountId, input.phoneNumberId, input.contactKey, at],
    });
    if (rows[0]?.was === "human") return [];
    return conversationUpdated(client, { ...input, change: "handover", by: "panel", at });
  });
  await deps.outbox.dispatch(committed);
}
