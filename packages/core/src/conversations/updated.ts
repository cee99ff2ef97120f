import type {
  ConversationAssigneeView,
  ConversationHandlerValue,
  ConversationHandlerView,
  ConversationStatus,
  ConversationUpdatedData,
} from "@gw/contracts";
import type { Sql } from "@gw/db";
import { contactsByKey } from "../contacts/contacts.ts";
import { isBsuidIdentifier } from "../contacts/recipient.ts";
import { contactOrderingKey } from "../deliveries/attempt/ordering.ts";
import {
  insertDeliveries,
  subscribedDeliveries,
  type CommittedDelivery,
  type PendingDelivery,
} from "../deliveries/attempt/outbox.ts";

// A conversation as the business's side sees it now (handler, status, assignee), and the `conversation.updated`
// event every change announces with it (issue 39): shared by the handover (handler.ts) and the inbox (inbox.ts).

interface ConversationStateRow {
  handler: ConversationHandlerValue;
  handler_note: string | null;
  handler_changed_at: Date | null;
  status: ConversationStatus;
  assignee_id: string | null;
  assignee_name: string | null;
}

/**
 * A conversation as the business's side sees it now, in one read: the handler (a lapsed hold is the bot's: the
 * migration's gateway_conversation_handler, the one spelling), the status and the assignee. A conversation without
 * a row is the bot's, open and unassigned.
 */
export async function conversationState(
  sql: Sql,
  input: { accountId: string; phoneNumberId: string; contactKey: string },
): Promise<{
  handler: ConversationHandlerView;
  status: ConversationStatus;
  assignee: ConversationAssigneeView | null;
}> {
  const { rows } = await sql.query<ConversationStateRow>({
    name: "conversation-state",
    text: `SELECT gateway_conversation_handler($1::uuid, $2, $3) AS handler, c.handler_note, c.handler_changed_at,
        c.status, c.assignee_id, u.name AS assignee_name
      FROM conversations c LEFT JOIN panel_users u ON u.id = c.assignee_id
      WHERE c.account_id = $1::uuid AND c.contact_key = $3 AND c.phone_number_id = $2`,
    values: [input.accountId, input.phoneNumberId, input.contactKey],
  });
  const row = rows[0];
  return {
    handler: {
      value: row?.handler ?? "bot",
      since: row?.handler_changed_at?.toISOString() ?? null,
      note: row?.handler_note ?? null,
    },
    status: row?.status ?? "open",
    assignee: row?.assignee_id ? { id: row.assignee_id, name: row.assignee_name ?? "" } : null,
  };
}

/**
 * Inside the caller's transaction, after a change: one `conversation.updated` delivery per integration that chose
 * it, describing the conversation as it is now, ordered with the customer's messages; inserted, to queue after commit.
 */
export async function conversationUpdated(sql: Sql, input: ConversationChangeInput): Promise<CommittedDelivery[]> {
  return insertDeliveries(sql, await conversationUpdatedDeliveries(sql, input), input.at);
}

interface ConversationChangeInput {
  accountId: string;
  phoneNumberId: string;
  contactKey: string;
  recipient: string;
  change: ConversationUpdatedData["change"];
  by: ConversationUpdatedData["by"];
  at: Date;
}

/** The `conversation.updated` deliveries of a change, not inserted yet (ingestion inserts them with the rest). */
export async function conversationUpdatedDeliveries(
  sql: Sql,
  input: ConversationChangeInput,
): Promise<PendingDelivery[]> {
  const key = { accountId: input.accountId, phoneNumberId: input.phoneNumberId, contactKey: input.contactKey };
  const [state, known] = await Promise.all([
    conversationState(sql, key),
    contactsByKey(sql, { accountId: input.accountId, keys: [input.contactKey] }),
  ]);
  const contact = known.get(input.contactKey);
  const bsuid = isBsuidIdentifier(input.recipient);
  const data: ConversationUpdatedData = {
    change: input.change,
    phone_number_id: input.phoneNumberId,
    recipient: input.recipient,
    phone: contact?.phone ?? (bsuid ? null : input.recipient),
    user_id: contact?.bsuid ?? (bsuid ? input.recipient : null),
    handler: state.handler.value,
    note: state.handler.note,
    status: state.status,
    assignee: state.assignee,
    by: input.by,
    occurred_at: input.at.toISOString(),
  };
  return (await subscribedDeliveries(sql, input.accountId, "conversation.updated", data)).map((delivery) => ({
    ...delivery,
    orderingKey: contactOrderingKey(input.contactKey),
  }));
}
