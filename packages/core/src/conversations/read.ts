import { inTransaction, type Db } from "@gw/db";
import { ApiError, type ErrorCode } from "@gw/errors";
import type { Logger } from "@gw/logger";
import { MetaApiError, MetaReadError, MetaUnavailableError, type MetaClient } from "@gw/meta";
import type { AccountDirectory } from "../accounts/directory.ts";
import { recordAuditAs, type Actor } from "../audit/audit.ts";
import { noteProviderRefusal, takeSendTurn, type NumberThroughput } from "../throughput/index.ts";
import { conversationContactKey } from "./conversations.ts";
import type { TypingClaim, TypingLimiter } from "./typing.ts";

/**
 * Read receipts and typing indicators (issue 18; docs/decisions.md, "Read receipts and typing"). Marking an inbound
 * message read at Meta goes through the business number that received it, and Meta also marks the earlier messages
 * of the conversation read: the gateway records the same (`inbound_messages.read_at`). No message is sent, nothing
 * is billed, no status webhook follows, and no webhook delivery is created. A typing indicator always comes with the
 * read receipt (Meta's API has no other way) and is limited to one per conversation at a time (typing.ts).
 */

export interface ReadReceiptDeps {
  db: Db;
  meta: Pick<MetaClient, "markRead">;
  /** The number that received the message must still be the account's; its rate paces the call. */
  directory: Pick<AccountDirectory, "resolveNumber">;
  logger: Logger;
  /** One typing indicator per conversation at a time; absent, typing indicators are not limited. */
  typing?: TypingLimiter;
  /** The numbers' pacing shared with every send: a receipt takes the number's turn like a message does. */
  throughput?: NumberThroughput;
  /** Retry-After of a 429 when Meta throttles the number (Meta sends none); default 30 s, as the sending section's. */
  providerRetryAfterSeconds?: number;
}

/** A message marked read (and, when asked, the typing indicator shown), as the edge answers it. */
export interface ReadReceipt {
  /** The inbound message's wamid. */
  messageId: string;
  phoneNumberId: string;
  typing: boolean;
  /** When the gateway recorded it read (the earlier call's time when it already was). */
  readAt: Date;
  /** True when it was already read and nothing was asked of Meta (a repeat without typing). */
  alreadyRead: boolean;
}

/**
 * What marking a message read came to: `marked`, or `refused` with the registry's error (nothing was recorded;
 * `not_found`, `message_too_old`, `rate_limited`, `provider_rejected`, `account_restricted`, `payment_issue`,
 * `provider_unavailable`). Failures of the gateway's own stores are thrown.
 */
export type ReadReceiptOutcome = { kind: "marked"; receipt: ReadReceipt } | { kind: "refused"; error: ApiError };

/** Meta recommends marking messages read within 30 days of receipt; older ones are refused before Meta. */
export const READ_RECEIPT_MAX_AGE_MS = 30 * 24 * 3600_000;

const DEFAULT_PROVIDER_RETRY_AFTER_SECONDS = 30;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const MESSAGE_NOT_FOUND = "A mensagem recebida não foi encontrada nesta conta.";
const NUMBER_GONE = "O número que recebeu esta mensagem não está mais conectado a esta conta.";
const TYPING_SHOWN =
  "Um indicador de digitando já está sendo mostrado nesta conversa; nada foi enviado. Envie a resposta, ou repita depois do tempo indicado em Retry-After (ou sem typing).";
const PROVIDER_REFUSED_READ = "O provedor recusou marcar a mensagem como lida.";
const PROVIDER_UNAVAILABLE_READ =
  "Não foi possível confirmar a leitura com o provedor agora; nada foi registrado. Repita a chamada em instantes.";

/** Meta's refusals of a read receipt that keep their own code; any other is `provider_rejected`. */
const OWN_CODES: ReadonlySet<ErrorCode> = new Set([
  "rate_limited",
  "provider_unavailable",
  "account_restricted",
  "payment_issue",
]);

/** One inbound message, as the receipt needs it. */
interface InboundRow {
  id: string;
  wamid: string;
  phone_number_id: string;
  contact_key: string;
  occurred_at: Date;
  read_at: Date | null;
}

const INBOUND_COLUMNS = `id::text, wamid, phone_number_id, contact_key, occurred_at, read_at`;

/**
 * Mark an inbound message of the account read at Meta, with the typing indicator when `typing` (POST
 * /public/v1/messages/{message_id}/read). `messageId` is its wamid, as `message.received` carried it; one of another
 * account, or unknown, is `not_found`. Without `typing`, a message already read is answered at once (Meta is not
 * asked again). Audited as `<origin>.inbound_message.marked_read`, with the receipt's record, in one transaction.
 */
export async function markInboundMessageRead(
  deps: ReadReceiptDeps,
  input: { accountId: string; messageId: string; typing: boolean; actor: Actor; now?: Date },
): Promise<ReadReceiptOutcome> {
  try {
    if (!UUID.test(input.accountId)) throw new ApiError("not_found", { message: MESSAGE_NOT_FOUND });
    const { rows } = await deps.db.sql.query<InboundRow>({
      name: "read-receipt-inbound-by-wamid",
      text: `SELECT ${INBOUND_COLUMNS} FROM inbound_messages WHERE wamid = $1 AND account_id = $2::uuid`,
      values: [input.messageId, input.accountId],
    });
    const message = rows[0];
    if (!message) throw new ApiError("not_found", { message: MESSAGE_NOT_FOUND });
    return { kind: "marked", receipt: await markRead(deps, input, message) };
  } catch (error) {
    if (error instanceof ApiError) return { kind: "refused", error };
    throw error;
  }
}

/**
 * The panel's Conversas, when an operator opens a conversation: if the account's setting is on
 * (`accounts.panel_read_receipts`, off by default) and the contact's newest message on that number is unread, it is
 * marked read at Meta (Meta marks the earlier ones too). `disabled`: the setting is off; `nothing_unread`: the
 * conversation has no unread message (or is not the account's). Never shows a typing indicator (the panel does
 * not reply).
 */
export async function markConversationReadOnOpen(
  deps: ReadReceiptDeps,
  input: { accountId: string; phoneNumberId: string; contact: string; actor: Actor; now?: Date },
): Promise<ReadReceiptOutcome | { kind: "disabled" } | { kind: "nothing_unread" }> {
  if (!UUID.test(input.accountId)) return { kind: "nothing_unread" };
  if (!(await panelReadReceiptsEnabled(deps, { accountId: input.accountId }))) return { kind: "disabled" };
  const contactKey = await conversationContactKey(deps.db.sql, { accountId: input.accountId, given: input.contact });
  if (contactKey === null) return { kind: "nothing_unread" };
  const { rows } = await deps.db.sql.query<InboundRow>({
    name: "read-receipt-newest-inbound",
    text: `SELECT ${INBOUND_COLUMNS} FROM inbound_messages
      WHERE account_id = $1::uuid AND phone_number_id = $2 AND contact_key = $3
      ORDER BY occurred_at DESC, created_at DESC LIMIT 1`,
    values: [input.accountId, input.phoneNumberId, contactKey],
  });
  const newest = rows[0];
  if (!newest || newest.read_at !== null) return { kind: "nothing_unread" };
  try {
    return { kind: "marked", receipt: await markRead(deps, { ...input, typing: false }, newest) };
  } catch (error) {
    if (error instanceof ApiError) return { kind: "refused", error };
    throw error;
  }
}

/** Whether opening a conversation in the panel marks it read (the account's setting; false for an unknown account). */
export async function panelReadReceiptsEnabled(deps: { db: Db }, input: { accountId: string }): Promise<boolean> {
  if (!UUID.test(input.accountId)) return false;
  const { rows } = await deps.db.sql.query<{ panel_read_receipts: boolean }>({
    name: "account-panel-read-receipts",
    text: `SELECT panel_read_receipts FROM accounts WHERE id = $1::uuid`,
    values: [input.accountId],
  });
  return rows[0]?.panel_read_receipts ?? false;
}

/**
 * Turn the panel's read receipts on or off for the account (owners and admins, in the panel). Audited as
 * `<origin>.account.read_receipts_changed` with the values before and after; setting the value it already has changes
 * nothing and is not audited. Null for an unknown account.
 */
export async function setPanelReadReceipts(
  deps: { db: Db },
  input: { accountId: string; enabled: boolean; actor: Actor },
): Promise<{ enabled: boolean; changed: boolean } | null> {
  if (!UUID.test(input.accountId)) return null;
  return inTransaction(deps.db.sql, async (client) => {
    const { rows } = await client.query<{ panel_read_receipts: boolean }>({
      name: "account-panel-read-receipts-lock",
      text: `SELECT panel_read_receipts FROM accounts WHERE id = $1::uuid FOR UPDATE`,
      values: [input.accountId],
    });
    const before = rows[0];
    if (!before) return null;
    if (before.panel_read_receipts === input.enabled) return { enabled: input.enabled, changed: false };
    await client.query({
      name: "account-panel-read-receipts-set",
      text: `UPDATE accounts SET panel_read_receipts = $2 WHERE id = $1::uuid`,
      values: [input.accountId, input.enabled],
    });
    await recordAuditAs(client, input, "account.read_receipts_changed", {
      target: `account:${input.accountId}`,
      details: { from: before.panel_read_receipts, to: input.enabled },
    });
    return { enabled: input.enabled, changed: true };
  });
}

/** The receipt of one message found in the account: the checks before Meta, Meta's call, then the record. */
async function markRead(
  deps: ReadReceiptDeps,
  input: { accountId: string; typing: boolean; actor: Actor; now?: Date },
  message: InboundRow,
): Promise<ReadReceipt> {
  const now = input.now ?? new Date();
  if (now.getTime() - message.occurred_at.getTime() > READ_RECEIPT_MAX_AGE_MS) throw new ApiError("message_too_old");
  const receipt = { messageId: message.wamid, phoneNumberId: message.phone_number_id, typing: input.typing };
  // Meta already has it read (the gateway records only what Meta confirmed): a repeat costs no call.
  if (!input.typing && message.read_at !== null) return { ...receipt, readAt: message.read_at, alreadyRead: true };

  const number = await deps.directory.resolveNumber(input.accountId, message.phone_number_id);
  if (!number) throw new ApiError("not_found", { message: NUMBER_GONE });
  const logFields = { accountId: input.accountId, phoneNumberId: message.phone_number_id, wamid: message.wamid };

  let releaseTyping: (() => Promise<void>) | null = null;
  if (input.typing && deps.typing) {
    const claim = await claimTyping(deps.typing, deps.logger, message);
    if (claim.granted === false)
      throw new ApiError("rate_limited", {
        message: TYPING_SHOWN,
        retryAfterSeconds: Math.max(1, Math.ceil(claim.retryAfterMs / 1000)),
      });
    releaseTyping = claim.release;
  }
  const paced = deps.throughput ? { throughput: deps.throughput, logger: deps.logger } : null;
  try {
    // Whether Meta counts a receipt against the number's throughput is unverified: it takes a turn like a send (no
    // recipient: no pair limit), refused (429) when the number's queue is over a second long.
    if (paced)
      await takeSendTurn(paced, {
        phoneNumberId: number.phoneNumberId,
        ratePerSecond: number.messagingRatePerSecond,
        pacing: "refuse",
      });
    await deps.meta.markRead(number.phoneNumberId, { messageId: message.wamid, typing: input.typing });
  } catch (error) {
    // The indicator never reached the contact: the conversation may have one at once.
    if (releaseTyping) await releaseTyping().catch((e: unknown) => typingUnavailable(deps.logger, e));
    if (paced)
      await noteProviderRefusal(paced, { phoneNumberId: number.phoneNumberId, to: message.contact_key, error });
    throw refusalOf(deps, error, logFields) ?? error;
  }

  const readAt = await inTransaction(deps.db.sql, async (client) => {
    // The message, and the earlier unread ones of its conversation on that number, as Meta marks them.
    const marked = await client.query({
      name: "read-receipt-record",
      text: `UPDATE inbound_messages SET read_at = $5
        WHERE account_id = $1::uuid AND phone_number_id = $2 AND contact_key = $3 AND read_at IS NULL
          AND (id = $4::uuid OR occurred_at < $6)`,
      values: [input.accountId, message.phone_number_id, message.contact_key, message.id, now, message.occurred_at],
    });
    // Its own time when it was read before (a typing indicator on a read message), or by a call running alongside.
    const { rows } = await client.query<{ read_at: Date | null }>({
      name: "read-receipt-read-at",
      text: `SELECT read_at FROM inbound_messages WHERE id = $1::uuid`,
      values: [message.id],
    });
    await recordAuditAs(client, input, "inbound_message.marked_read", {
      target: `inbound_message:${message.id}`,
      details: { wamid: message.wamid, typing: input.typing, marked: marked.rowCount ?? 0 },
    });
    return rows[0]?.read_at ?? now;
  });
  deps.logger.info("inbound message marked read", { ...logFields, typing: input.typing });
  return { ...receipt, readAt, alreadyRead: false };
}

/** A Redis that cannot answer does not stop the receipt: the indicator goes unlimited (logged once a minute). */
async function claimTyping(typing: TypingLimiter, logger: Logger, message: InboundRow): Promise<TypingClaim> {
  try {
    return await typing.claim({
      phoneNumberId: message.phone_number_id,
      contactKey: message.contact_key,
      wamid: message.wamid,
      occurredAt: message.occurred_at,
    });
  } catch (error) {
    typingUnavailable(logger, error);
    return { granted: true, release: () => Promise.resolve() };
  }
}

let lastTypingOutageLog = 0;
function typingUnavailable(logger: Logger, error: unknown): void {
  if (Date.now() - lastTypingOutageLog < 60_000) return;
  lastTypingOutageLog = Date.now();
  logger.warn("typing indicator limit unavailable; showing it without the limit", {
    error: error instanceof Error ? error.message : String(error),
  });
}

/** What Meta's answer (or its absence) means for the caller, in the registry's codes. */
function refusalOf(deps: ReadReceiptDeps, error: unknown, logFields: Record<string, unknown>): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error instanceof MetaApiError) {
    deps.logger.info("provider refused the read receipt", {
      ...logFields,
      metaCode: error.code,
      details: error.details,
    });
    const code = OWN_CODES.has(error.reason) ? error.reason : "provider_rejected";
    return new ApiError(code, {
      cause: error,
      ...(code === "provider_rejected" ? { message: PROVIDER_REFUSED_READ } : {}),
      ...(code === "provider_unavailable" ? { message: PROVIDER_UNAVAILABLE_READ } : {}),
      ...(code === "rate_limited"
        ? { retryAfterSeconds: deps.providerRetryAfterSeconds ?? DEFAULT_PROVIDER_RETRY_AFTER_SECONDS }
        : {}),
    });
  }
  // Marking read is safe to repeat: an unconfirmed call is a failed one.
  if (error instanceof MetaUnavailableError || error instanceof MetaReadError) {
    deps.logger.warn("read receipt not confirmed by the provider", { ...logFields, error: error.message });
    return new ApiError("provider_unavailable", { message: PROVIDER_UNAVAILABLE_READ, cause: error });
  }
  return null;
}
