import type {
  ConversationAssigneeView,
  ConversationHandlerView,
  ConversationStatus,
  ConversationHandoverData,
  ConversationThreadView,
  ThreadControlAction,
  ThreadHolder,
  ThreadSource,
} from "@gw/contracts";
import { inTransaction, type Db, type Sql } from "@gw/db";
import { ApiError, type ErrorCode } from "@gw/errors";
import type { Logger } from "@gw/logger";
import { MetaApiError, MetaReadError, MetaUnavailableError, type MetaClient, type MetaHandover } from "@gw/meta";
import type { AccountDirectory } from "../accounts/directory.ts";
import { recordAuditAs, type Actor } from "../audit/audit.ts";
import { graphRecipient } from "../contacts/recipient.ts";
import { contactOrderingKey } from "../deliveries/attempt/ordering.ts";
import { subscribedDeliveries, type PendingDelivery } from "../deliveries/attempt/outbox.ts";
import { getWindow, type WindowState } from "../windows/windows.ts";
import { addressConversation } from "./address.ts";
import { conversationState } from "./updated.ts";

/**
 * Conversation Routing (issue 37 part 4; meta-late-2026 §5; docs/decisions.md, "Conversation Routing: thread
 * control"): Meta gives each customer's conversation on a business number one holder app. The gateway learns who
 * from three sources and keeps the newest:
 * - the customer's newest message (contact_windows.last_inbound_standby, written by the message's own statement):
 *   on Meta's `messages` field the gateway's app holds it, on `standby` another app does;
 * - Meta's `messaging_handovers` notifications (`control_passed` to the new holder, `control_taken` to the previous);
 * - the gateway's own thread control (pass, take, release), which Meta notifies to the other app, never to us.
 * The last two are kept in `conversations` (one row per conversation, only once something was said).
 */

/** Who holds a conversation, as core hands it to the edge (the contract's ConversationThread, with a Date). */
export interface ThreadState {
  holder: ThreadHolder;
  role: string | null;
  since: Date | null;
  source: ThreadSource | null;
}

interface ThreadRow {
  thread_holder: ThreadHolder | null;
  thread_role: string | null;
  thread_source: ThreadSource | null;
  thread_changed_at: Date | null;
  last_inbound_received_at: Date | null;
  last_inbound_standby: boolean | null;
}

/** The newer of the recorded move and the customer's newest message; nothing known is the gateway's. */
function threadOf(row: ThreadRow | undefined): ThreadState {
  const recorded =
    row?.thread_holder && row.thread_changed_at && row.thread_source
      ? { holder: row.thread_holder, role: row.thread_role, since: row.thread_changed_at, source: row.thread_source }
      : null;
  const inboundAt = row?.last_inbound_received_at ?? null;
  if (inboundAt && (!recorded || inboundAt.getTime() > recorded.since.getTime())) {
    const holder: ThreadHolder = row?.last_inbound_standby ? "another_app" : "gateway";
    // A message confirms the holder without naming a role: the recorded role stays when the holder is the same.
    const role = recorded?.holder === holder ? recorded.role : null;
    return { holder, role, since: inboundAt, source: row?.last_inbound_standby ? "standby" : "message" };
  }
  return recorded ?? { holder: "gateway", role: null, since: null, source: null };
}

/** The contract's view of a thread. */
export function threadView(thread: ThreadState): ConversationThreadView {
  return { ...thread, since: thread.since?.toISOString() ?? null };
}

/** Who holds the conversation of `contactKey` on the number (one statement). */
export async function readThread(
  sql: Sql,
  input: { accountId: string; phoneNumberId: string; contactKey: string },
): Promise<ThreadState> {
  const { rows } = await sql.query<ThreadRow>({
    name: "conversation-thread",
    text: `SELECT c.thread_holder, c.thread_role, c.thread_source, c.thread_changed_at,
        w.last_inbound_received_at, w.last_inbound_standby
      FROM (SELECT 1) AS one
      LEFT JOIN conversations c ON c.account_id = $1::uuid AND c.phone_number_id = $2 AND c.contact_key = $3
      LEFT JOIN contact_windows w ON w.phone_number_id = $2 AND w.contact = $3`,
    values: [input.accountId, input.phoneNumberId, input.contactKey],
  });
  return threadOf(rows[0]);
}

/**
 * Record a move; one the gateway learnt before the recorded one (two pods racing) changes nothing. A row a handover
 * to a person created (handler.ts) has no move yet: the first one is recorded.
 */
async function recordThread(
  sql: Sql,
  input: {
    accountId: string;
    phoneNumberId: string;
    contactKey: string;
    holder: ThreadHolder;
    role: string | null;
    source: ThreadSource;
    at: Date;
  },
): Promise<boolean> {
  const { rowCount } = await sql.query({
    name: "conversation-thread-record",
    text: `INSERT INTO conversations (account_id, phone_number_id, contact_key, thread_holder, thread_role,
        thread_source, thread_changed_at)
      VALUES ($1::uuid, $2, $3, $4, $5, $6, $7)
      ON CONFLICT (account_id, contact_key, phone_number_id) DO UPDATE SET thread_holder = EXCLUDED.thread_holder,
        thread_role = EXCLUDED.thread_role, thread_source = EXCLUDED.thread_source,
        thread_changed_at = EXCLUDED.thread_changed_at
      WHERE conversations.thread_changed_at IS NULL OR conversations.thread_changed_at <= EXCLUDED.thread_changed_at`,
    values: [input.accountId, input.phoneNumberId, input.contactKey, input.holder, input.role, input.source, input.at],
  });
  return (rowCount ?? 0) > 0;
}

/** A `messaging_handovers` notification matched to its account and its customer's contact key (ingest). */
export interface HandoverInput {
  accountId: string;
  handover: MetaHandover;
  contactKey: string;
  receivedAt: Date;
}

/**
 * Apply Meta's handover notifications inside the caller's transaction: record who holds each conversation now and
 * return one `conversation.handover` delivery per integration that chose the event, ordered with the customer's
 * messages. One learnt before what is recorded (two pods racing) is not an event any more: nothing is sent for it.
 */
export async function applyHandovers(sql: Sql, items: readonly HandoverInput[]): Promise<PendingDelivery[]> {
  const deliveries: PendingDelivery[] = [];
  for (const { accountId, handover, contactKey, receivedAt } of items) {
    // Ordered by when the gateway learnt it (Meta's time is whole seconds, the gateway's own moves are not).
    const at = receivedAt;
    const holder: ThreadHolder = handover.type === "control_passed" ? "gateway" : "another_app";
    const { phoneNumberId, user } = handover;
    const recorded = await recordThread(sql, {
      accountId,
      phoneNumberId,
      contactKey,
      holder,
      role: handover.currentRole,
      source: handover.type,
      at,
    });
    if (!recorded) continue;
    const data: ConversationHandoverData = {
      type: handover.type,
      phone_number_id: phoneNumberId,
      recipient: user.phone ?? user.bsuid ?? contactKey,
      phone: user.phone,
      user_id: user.bsuid,
      holder,
      previous_role: handover.previousRole,
      current_role: handover.currentRole,
      metadata: handover.metadata,
      occurred_at: (handover.time ?? receivedAt).toISOString(),
    };
    for (const delivery of await subscribedDeliveries(sql, accountId, "conversation.handover", data))
      deliveries.push({ ...delivery, orderingKey: contactOrderingKey(contactKey) });
  }
  return deliveries;
}

export interface ThreadControlDeps {
  db: Db;
  meta: Pick<MetaClient, "threadControl">;
  directory: Pick<AccountDirectory, "resolveNumber">;
  logger: Logger;
}

/**
 * What a thread control came to: `done` with the holder now, `unknown_number` when `phoneNumberId` is not one of the
 * account's numbers (the edge's validation error), or `refused` with the registry's error (nothing recorded).
 */
export type ThreadControlOutcome =
  | { kind: "done"; recipient: string; phoneNumberId: string; thread: ThreadState }
  | { kind: "unknown_number" }
  | { kind: "refused"; error: ApiError };

/** Meta's refusals that keep their own code; any other is `provider_rejected`. */
const OWN_CODES: ReadonlySet<ErrorCode> = new Set([
  "thread_control_not_permitted",
  "rate_limited",
  "provider_unavailable",
  "account_restricted",
  "payment_issue",
]);

const PROVIDER_REFUSED = "O provedor recusou a ação sobre a conversa.";
const PROVIDER_UNAVAILABLE =
  "Não foi possível confirmar a ação sobre a conversa com o provedor agora; nada foi registrado. Repita a chamada em instantes.";

/** Who holds the conversation after the gateway's own action (Meta says nothing back to the gateway). */
function heldAfter(action: ThreadControlAction, targetRole: string | undefined): Pick<ThreadState, "holder" | "role"> {
  if (action === "take") return { holder: "gateway", role: "escalation_partner" };
  if (action === "release") return { holder: "released", role: null };
  return { holder: "another_app", role: targetRole ?? "escalation_partner" };
}

/**
 * POST /public/v1/conversations/{recipient}/thread-control: pass, take or release a customer's conversation at Meta
 * through the business number (the account's default when none is named). Not paced and not billed: no message is
 * sent. Done, the holder is recorded and audited (`<origin>.conversation.thread_control`) in one transaction.
 */
export async function controlThread(
  deps: ThreadControlDeps,
  input: {
    accountId: string;
    recipient: string;
    phoneNumberId?: string | undefined;
    action: ThreadControlAction;
    targetRole?: "ai_agent" | undefined;
    metadata?: string | undefined;
    actor: Actor;
    now?: Date;
  },
): Promise<ThreadControlOutcome> {
  const conversation = await addressConversation(deps, input);
  if (conversation.kind !== "found") return conversation;
  const { phoneNumberId, identifier, contactKey } = conversation;
  const logFields = { accountId: input.accountId, phoneNumberId, action: input.action };
  try {
    await deps.meta.threadControl(phoneNumberId, {
      messaging_product: "whatsapp",
      ...graphRecipient(identifier),
      action: input.action,
      ...(input.targetRole ? { control_pass: { target_role: input.targetRole } } : {}),
      ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
    });
  } catch (error) {
    const refusal = refusalOf(deps.logger, error, logFields);
    if (refusal) return refused(refusal);
    throw error;
  }
  const at = input.now ?? new Date();
  const held = heldAfter(input.action, input.targetRole);
  await inTransaction(deps.db.sql, async (client) => {
    await recordThread(client, {
      accountId: input.accountId,
      phoneNumberId,
      contactKey,
      ...held,
      source: input.action,
      at,
    });
    await recordAuditAs(client, input, "conversation.thread_control", {
      target: `conversation:${phoneNumberId}:${contactKey}`,
      details: { action: input.action, target_role: input.targetRole ?? null, recipient: identifier },
    });
  });
  deps.logger.info("conversation thread control done", logFields);
  return {
    kind: "done",
    recipient: identifier,
    phoneNumberId,
    thread: { ...held, since: at, source: input.action },
  };
}

function refused(error: ApiError): ThreadControlOutcome {
  return { kind: "refused", error };
}

function refusalOf(logger: Logger, error: unknown, logFields: Record<string, unknown>): ApiError | null {
  if (error instanceof MetaApiError) {
    logger.info("provider refused the thread control", { ...logFields, metaCode: error.code, details: error.details });
    const code = OWN_CODES.has(error.reason) ? error.reason : "provider_rejected";
    return new ApiError(code, {
      cause: error,
      ...(code === "provider_rejected" ? { message: PROVIDER_REFUSED } : {}),
      ...(code === "provider_unavailable" ? { message: PROVIDER_UNAVAILABLE } : {}),
      ...(code === "rate_limited" ? { retryAfterSeconds: 30 } : {}),
    });
  }
  // Thread control sends no message: an unconfirmed call is a failed one, safe to repeat.
  if (error instanceof MetaUnavailableError || error instanceof MetaReadError) {
    logger.warn("thread control not confirmed by the provider", { ...logFields, error: error.message });
    return new ApiError("provider_unavailable", { message: PROVIDER_UNAVAILABLE, cause: error });
  }
  return null;
}

/** GET /public/v1/conversations/{recipient}: the conversation's window, handler and holder on the number. */
export type ConversationDetailOutcome =
  | {
      kind: "found";
      recipient: string;
      phoneNumberId: string;
      window: WindowState;
      handler: ConversationHandlerView;
      status: ConversationStatus;
      assignee: ConversationAssigneeView | null;
      thread: ThreadState;
    }
  | { kind: "unknown_number" }
  | { kind: "refused"; error: ApiError };

export async function conversationDetail(
  deps: { db: Db; directory: Pick<AccountDirectory, "resolveNumber"> },
  input: { accountId: string; recipient: string; phoneNumberId?: string | undefined; now?: Date },
): Promise<ConversationDetailOutcome> {
  // A phone as its digits (an invalid one too: nothing is known of it), a BSUID as given, as GET /window says.
  const conversation = await addressConversation(deps, { ...input, anyRecipient: true });
  if (conversation.kind !== "found") return conversation;
  const { phoneNumberId, identifier, contactKey } = conversation;
  const key = { accountId: input.accountId, phoneNumberId, contactKey };
  const [window, state, thread] = await Promise.all([
    getWindow(deps, { phoneNumberId, contact: contactKey, now: input.now }),
    conversationState(deps.db.sql, key),
    readThread(deps.db.sql, key),
  ]);
  const { handler, status, assignee } = state;
  return { kind: "found", recipient: identifier, phoneNumberId, window, handler, status, assignee, thread };
}
