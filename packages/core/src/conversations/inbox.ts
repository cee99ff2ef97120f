import type { ConversationUpdatedData } from "@gw/contracts";
import { inTransaction, type Db } from "@gw/db";
import type { Logger } from "@gw/logger";
import { recordAuditAs, type Actor } from "../audit/audit.ts";
import type { Outbox } from "../deliveries/attempt/outbox.ts";
import { conversationRecipient } from "./conversations.ts";
import { conversationUpdated } from "./updated.ts";

/**
 * The inbox's part of a conversation (issue 39; docs/decisions.md, "Conversations: the bot and the person"): open or
 * closed, assigned to one of the account's panel users or to none. Assigning makes a person the handler; closing
 * gives the conversation back to the bot; a customer writing to a closed conversation reopens it (events/inbound.ts).
 * Every change is audited and announced as `conversation.updated` in its transaction (conversationUpdated).
 */

export type InboxChange =
  { kind: "assign"; assigneeId: string } | { kind: "unassign" } | { kind: "close" } | { kind: "reopen" };

const CHANGE_OF: Record<InboxChange["kind"], ConversationUpdatedData["change"]> = {
  assign: "assigned",
  unassign: "unassigned",
  close: "closed",
  reopen: "reopened",
};

/** What each change writes ($4, $5 its own values): an assignment makes a person the handler, closing gives the bot. */
function changeSql(change: InboxChange, at: Date): { set: string; values: unknown[] } {
  switch (change.kind) {
    case "assign":
      return {
        set: `assignee_id = $4::uuid, handler = 'human', handler_changed_at = $5`,
        values: [change.assigneeId, at],
      };
    case "unassign":
      return { set: `assignee_id = NULL`, values: [] };
    case "close":
      return {
        set: `status = 'closed', status_changed_at = $4, handler = 'bot', handler_changed_at = $4`,
        values: [at],
      };
    case "reopen":
      return { set: `status = 'open', status_changed_at = $4`, values: [at] };
  }
}

/**
 * The panel's inbox changes a conversation of one of the account's numbers: assign it (to one of the account's
 * users), take the assignment away, close or reopen it. `not_found` when the conversation, the number or the user is
 * not the account's. Audited as `<origin>.conversation.<change>` and announced, in one transaction.
 */
export async function changeConversation(
  deps: { db: Db; outbox: Outbox; logger: Logger },
  input: { accountId: string; phoneNumberId: string; contact: string; change: InboxChange; actor: Actor; now?: Date },
): Promise<{ kind: "done" } | { kind: "not_found" }> {
  const recipient = await conversationRecipient(deps.db.sql, { accountId: input.accountId, given: input.contact });
  if (!recipient) return { kind: "not_found" };
  const assigneeId = input.change.kind === "assign" ? input.change.assigneeId : null;
  const { rows } = await deps.db.sql.query<{ number: boolean; user: boolean }>({
    name: "conversation-change-owned",
    text: `SELECT EXISTS (SELECT 1 FROM business_numbers WHERE account_id = $1::uuid AND phone_number_id = $2) AS number,
        ($3::uuid IS NULL OR EXISTS (SELECT 1 FROM panel_users WHERE account_id = $1::uuid AND id = $3::uuid)) AS user`,
    values: [input.accountId, input.phoneNumberId, assigneeId],
  });
  if (!rows[0]?.number || !rows[0].user) return { kind: "not_found" };
  const at = input.now ?? new Date();
  const change = CHANGE_OF[input.change.kind];
  const committed = await inTransaction(deps.db.sql, async (client) => {
    await client.query({
      text: `INSERT INTO conversations (account_id, phone_number_id, contact_key) VALUES ($1::uuid, $2, $3)
        ON CONFLICT (account_id, contact_key, phone_number_id) DO NOTHING`,
      values: [input.accountId, input.phoneNumberId, recipient.contactKey],
    });
    const { set, values } = changeSql(input.change, at);
    await client.query({
      text: `UPDATE conversations SET ${set} WHERE account_id = $1::uuid AND contact_key = $3 AND phone_number_id = $2`,
      values: [input.accountId, input.phoneNumberId, recipient.contactKey, ...values],
    });
    await recordAuditAs(client, input, `conversation.${change}`, {
      target: `conversation:${input.phoneNumberId}:${recipient.contactKey}`,
      details: assigneeId ? { assignee_id: assigneeId } : {},
    });
    return conversationUpdated(client, {
      accountId: input.accountId,
      phoneNumberId: input.phoneNumberId,
      contactKey: recipient.contactKey,
      recipient: recipient.sendTo,
      change,
      by: "panel",
      at,
    });
  });
  await deps.outbox.dispatch(committed);
  deps.logger.info("conversation changed", { accountId: input.accountId, phoneNumberId: input.phoneNumberId, change });
  return { kind: "done" };
}
