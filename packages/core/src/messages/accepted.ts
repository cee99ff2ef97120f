import { inTransaction, isDatabaseUnavailable, type Db, type Sql } from "@gw/db";
import type { Redis } from "ioredis";
import type { Logger } from "@gw/logger";
import { AUDIT_INSERT_COLUMNS, recordAudit } from "../audit/audit.ts";
import { completeReservationStatement, type IdempotencyStore } from "../idempotency/idempotency.ts";
import {
  insertDeliveries,
  type CommittedDelivery,
  type Outbox,
  type PendingDelivery,
} from "../deliveries/attempt/outbox.ts";
import { applyEarlyStatuses } from "../events/statuses.ts";
import { orderStatusSentDeliveries } from "../events/order-updated.ts";
import { orderAnswer, recordAcceptedOrder, type AcceptedOrder } from "./order-records.ts";
import type { ContentKind, SettledSend } from "./outcome.ts";
import type { OutboundSummary } from "./summary.ts";

/**
 * A send the provider accepted: everything needed to record it. Also the unit of the send journal, so it is
 * plain JSON.
 */
export interface AcceptedSend {
  accountId: string;
  phoneNumberId: string;
  /** As the integrator named the recipient: a phone's digits or a BSUID. */
  to: string;
  /** The recipient's contact key; absent in journal entries of the previous release (then `to`). */
  contactKey?: string | null;
  /** The recipient's BSUID when known at send time (sent to it, or Meta answered it). */
  recipientUserId?: string | null;
  wamid: string;
  kind: ContentKind;
  templateName: string | null;
  /**
   * What a free-form send beyond text carried, as the panel shows it (`messages.content`); null for text and
   * templates. Absent in journal entries of the previous release (then null).
   */
  content?: OutboundSummary | null;
  clientRef: string | null;
  campaignId: string | null;
  requestId: string;
  /** Who sent it (`Actor.id`): the journal keeps it as plain JSON. */
  actor: string;
  /** The Idempotency-Key reservation to complete (as `sent`), if the call had a key. */
  reservationId: string | null;
  /** The send's W3C trace context (its request's span), kept on the message; absent in older journal entries. */
  traceparent?: string | null;
  /** Issue 28: the order this send opens (a Pix send) or updates (order_status); absent otherwise. */
  order?: AcceptedOrder;
  /** The audit entry's action, target and details when not `api.messages.send` (an order_status send). */
  auditAction?: string;
  auditTarget?: string;
  auditDetails?: Record<string, string | null>;
}

/** What the key of an accepted send keeps: the message, as the send's answer describes it. */
export function sentOutcome(send: AcceptedSend): SettledSend {
  return {
    kind: "sent",
    message: {
      messageId: send.wamid,
      to: send.to,
      type: send.kind,
      phoneNumberId: send.phoneNumberId,
      clientRef: send.clientRef,
      ...orderAnswer(send.order),
    },
  };
}

// The message, once: the wamid is unique, so a replayed journal entry is a no-op. The same statement takes the
// wamid's lock (see lockWamids): the statement that then looks for early statuses sees every status committed by a
// webhook that held the lock before us.
const STORE_MESSAGE = `
INSERT INTO messages (account_id, phone_number_id, "to", wamid, kind, template_name, status, client_ref, campaign_id, request_id,
  contact_key, recipient_user_id, content)
SELECT $1::uuid, $2, $3, $4, $5, $6, 'accepted', $7, $8, $9, $10, $11, $12::jsonb
FROM (SELECT pg_advisory_xact_lock(hashtextextended($4, 0))) AS wamid_lock
ON CONFLICT (wamid) DO NOTHING
RETURNING id`;

/** `messages.content`: the summary as JSON, or null (text, templates, journal entries of the previous release). */
function contentValue(send: Pick<AcceptedSend, "content">): string | null {
  return send.content ? JSON.stringify(send.content) : null;
}

/** The message row's values: $1 to $11 of STORE_MESSAGE and of RECORD_ACCEPTED_SEND. */
function messageValues(send: Omit<AcceptedSend, "reservationId">): (string | null)[] {
  return [
    send.accountId,
    send.phoneNumberId,
    send.to,
    send.wamid,
    send.kind,
    send.templateName,
    send.clientRef,
    send.campaignId,
    send.requestId,
    send.contactKey ?? send.to,
    send.recipientUserId ?? null,
  ];
}

/**
 * Inside the caller's transaction: the message (status `accepted`, once — the wamid is unique, so a replayed
 * journal entry is a no-op), its audit entry, and any status that arrived before this commit (under the wamid's
 * lock, see `lockWamids`). Returns the deliveries those early statuses created, to insert with the rest.
 */
export async function storeAcceptedMessage(
  sql: Sql,
  send: Omit<AcceptedSend, "reservationId">,
): Promise<PendingDelivery[]> {
  const stored = await sql.query({
    name: "store-accepted-message",
    text: STORE_MESSAGE,
    values: [...messageValues(send), contentValue(send)],
  });
  // The send operation's entry (spec 4.7: `api.` like the other API operations), once per message.
  if (stored.rowCount === 1)
    await recordAudit(sql, {
      accountId: send.accountId,
      actor: { id: send.actor, origin: "api", requestId: send.requestId },
      action: "api.messages.send",
      target: `message:${send.wamid}`,
      details: { to: send.to, type: send.kind, template: send.templateName },
    });
  return applyEarlyStatuses(sql, send.wamid);
}

// The accepted send's commit in one statement (one round trip instead of one per row): under the wamid's lock, the
// message once (STORE_MESSAGE's insert), its audit entry only when the message was new (recordAudit's columns and
// values), and the Idempotency-Key's final answer (the store's own `complete` statement: only the reservation this
// call marked, a `sent` never downgraded). Data-modifying CTEs all run to completion whether read or not; the
// message is recorded whatever the key says (Meta accepted it: a reservation purged after its TTL, or a journal
// replayed days later, only means a repeat of that key is a new request, as the TTL promises).
const RECORD_ACCEPTED_SEND = `
WITH wamid_lock AS (SELECT pg_advisory_xact_lock(hashtextextended($4, 0))),
stored AS (
  INSERT INTO messages (account_id, phone_number_id, "to", wamid, kind, template_name, status, client_ref, campaign_id, request_id,
    contact_key, recipient_user_id, content, trace_context)
  SELECT $1::uuid, $2, $3, $4, $5, $6, 'accepted', $7, $8, $9, $10, $11, $16::jsonb, $19 FROM wamid_lock
  ON CONFLICT (wamid) DO NOTHING
  RETURNING id),
audited AS (
  ${AUDIT_INSERT_COLUMNS}
  SELECT $1::uuid, $12, COALESCE($17::text, 'api.messages.send'), COALESCE($18::text, 'message:' || $4), $9, $13::jsonb FROM stored),
completed AS (
  ${completeReservationStatement("$14", "$15", "$4")}
  RETURNING id)
SELECT (SELECT count(*) FROM stored)::int AS stored, (SELECT count(*) FROM completed)::int AS completed`;

/**
 * Record an accepted send in one transaction: the message and its audit entry, the Idempotency-Key's final
 * answer, and the deliveries of statuses that arrived first. Idempotent, so the journal may replay it. Returns
 * the ids of the deliveries to queue. Four round trips whatever the send: BEGIN, the single commit statement,
 * the early statuses, COMMIT (docs/performance.md).
 */
export async function recordAcceptedSend(
  deps: { db: Db; idempotency: IdempotencyStore<SettledSend> },
  send: AcceptedSend,
): Promise<CommittedDelivery[]> {
  return inTransaction(deps.db.sql, async (client) => {
    await client.query({
      name: "record-accepted-send",
      text: RECORD_ACCEPTED_SEND,
      values: [
        ...messageValues(send),
        send.actor,
        JSON.stringify(send.auditDetails ?? { to: send.to, type: send.kind, template: send.templateName }),
        send.reservationId,
        JSON.stringify(sentOutcome(send)),
        contentValue(send),
        send.auditAction ?? null,
        send.auditTarget ?? null,
        send.traceparent ?? null,
      ],
    });
    // Issue 28: the order opens (Pix send) or moves (order_status) in this same transaction.
    const moved = send.order ? await recordAcceptedOrder(client, { ...send, order: send.order }) : null;
    // An order_status that moved its order: `order.updated` (status_sent) to the integrations that chose it, before
    // the events of the message's early statuses.
    const orderEvents = moved === null ? [] : await orderStatusSentDeliveries(client, send.wamid);
    // A statement of its own, after the one that took the wamid's lock: its snapshot is taken once the lock is ours,
    // so it sees every status a webhook parked under that lock before us (see lockWamids).
    return insertDeliveries(client, [...orderEvents, ...(await applyEarlyStatuses(client, send.wamid))]);
  });
}

export interface SendJournalOptions {
  redis: Redis;
  keyPrefix: string;
  logger: Logger;
}

/**
 * Where an accepted send goes when PostgreSQL cannot take it even after retries (failover, restart): a Redis
 * list (AOF), replayed into PostgreSQL by `replay` as soon as it answers again. The integrator gets the
 * message id it needs to follow the message's statuses; the Idempotency-Key stays in flight (409) until the
 * replay completes it.
 */
export interface SendJournal {
  append(send: AcceptedSend): Promise<void>;
  /** Apply journaled sends; returns how many were applied. Safe to run from several processes. */
  replay(record: (send: AcceptedSend) => Promise<CommittedDelivery[]>, outbox: Outbox): Promise<number>;
  size(): Promise<number>;
}

export function createSendJournal(options: SendJournalOptions): SendJournal {
  const key = `${options.keyPrefix}:send-journal`;
  return {
    async append(send) {
      await options.redis.rpush(key, JSON.stringify(send));
    },
    async replay(record, outbox) {
      let applied = 0;
      for (;;) {
        const entries = await options.redis.lrange(key, 0, 99);
        if (entries.length === 0) return applied;
        for (const entry of entries) {
          const send = JSON.parse(entry) as AcceptedSend;
          try {
            // Recording is idempotent: an entry applied by another process too is a no-op.
            await outbox.dispatch(await record(send));
            applied++;
          } catch (error) {
            // Still unavailable: stop and try again later. Anything else would fail for ever: set it aside.
            if (isDatabaseUnavailable(error)) throw error;
            options.logger.error("journaled send cannot be recorded; moved to the failed list", {
              wamid: send.wamid,
              error,
            });
            await options.redis.rpush(`${key}:failed`, entry);
          }
          await options.redis.lrem(key, 1, entry);
        }
      }
    },
    size() {
      return options.redis.llen(key);
    },
  };
}

export interface CommitPolicy {
  /** Total time the commit is retried while the database is unavailable. */
  retryForMs: number;
  /** First wait between tries; doubled each time, at most 1 s. */
  firstDelayMs: number;
}

export const DEFAULT_COMMIT_POLICY: CommitPolicy = { retryForMs: 8_000, firstDelayMs: 100 };

export type CommitOutcome =
  { kind: "committed"; deliveries: CommittedDelivery[] } | { kind: "journaled" } | { kind: "lost"; error: unknown };

/**
 * After the provider accepted a send, its record must not be lost: retry the commit while the database is
 * unavailable, then fall back to the journal. Only when both fail is the outcome `lost` (the caller answers
 * `send_unconfirmed` with the message id).
 */
export async function commitAcceptedSend(
  deps: {
    db: Db;
    idempotency: IdempotencyStore<SettledSend>;
    journal: SendJournal | null;
    logger: Logger;
    commitPolicy?: CommitPolicy;
  },
  send: AcceptedSend,
): Promise<CommitOutcome> {
  const policy = deps.commitPolicy ?? DEFAULT_COMMIT_POLICY;
  const deadline = Date.now() + policy.retryForMs;
  let delay = policy.firstDelayMs;
  let lastError: unknown;
  for (;;) {
    try {
      return { kind: "committed", deliveries: await recordAcceptedSend(deps, send) };
    } catch (error) {
      lastError = error;
      if (!isDatabaseUnavailable(error) || Date.now() + delay > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 1_000);
    }
  }
  deps.logger.error("accepted send not committed; writing it to the send journal", {
    wamid: send.wamid,
    error: lastError,
  });
  if (deps.journal) {
    try {
      await deps.journal.append(send);
      return { kind: "journaled" };
    } catch (error) {
      deps.logger.error("send journal unavailable", { wamid: send.wamid, error });
    }
  }
  return { kind: "lost", error: lastError };
}
