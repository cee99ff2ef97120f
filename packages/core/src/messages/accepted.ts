import { inTransaction, isDatabaseUnavailable, type Db, type Sql } from "@gw/db";
import type { Redis } from "ioredis";
import type { Logger } from "@gw/logger";
import type { GraphSendRoute } from "@gw/meta";
import { AUDIT_INSERT_COLUMNS, recordAudit } from "../audit/audit.ts";
import { groupCalls, type CallOutcome } from "../batching/group-calls.ts";
import {
  insertDeliveries,
  type CommittedDelivery,
  type Outbox,
  type PendingDelivery,
} from "../deliveries/attempt/outbox.ts";
import { applyEarlyStatuses, applyStatuses, type ProviderStatusUpdate } from "../events/statuses.ts";
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
  /** The Graph endpoint that carried it (`marketing_messages` for a number that opted in); absent: `/messages`. */
  routedVia?: GraphSendRoute | null;
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
  contact_key, recipient_user_id, content, routed_via)
SELECT $1::uuid, $2, $3, $4, $5, $6, 'accepted', $7, $8, $9, $10, $11, $12::jsonb, $13
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
    values: [...messageValues(send), contentValue(send), send.routedVia ?? null],
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

// The accepted sends' commit in one statement, for one send or several committed together (group commit, one round
// trip instead of one per row): under each wamid's lock (taken in hash order, as the status webhooks take theirs), the
// message once (STORE_MESSAGE's insert), its audit entry only when the message was new (recordAudit's columns and
// values), and the Idempotency-Key's final answer (the store's own `complete` rule: only the reservation this call
// marked, a `sent` never downgraded). Data-modifying CTEs all run to completion whether read or not; the message is
// recorded whatever the key says (Meta accepted it: a reservation purged after its TTL, or a journal replayed days
// later, only means a repeat of that key is a new request, as the TTL promises).
const RECORD_ACCEPTED_SENDS = `
WITH input AS (
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
      $9::text[], $10::text[], $11::text[], $12::text[], $13::jsonb[], $14::bigint[], $15::jsonb[], $16::jsonb[],
      $17::text[], $18::text[], $19::text[], $20::text[])
    AS t(account_id, phone_number_id, "to", wamid, kind, template_name, client_ref, campaign_id, request_id, contact_key,
      recipient_user_id, actor, audit_details, reservation_id, outcome, content, audit_action, audit_target,
      trace_context, routed_via)
), wamid_lock AS (
  SELECT count(pg_advisory_xact_lock(h)) AS locked
  FROM (SELECT DISTINCT hashtextextended(wamid, 0) AS h FROM input ORDER BY 1) AS l
), stored AS (
  INSERT INTO messages (account_id, phone_number_id, "to", wamid, kind, template_name, status, client_ref, campaign_id,
    request_id, contact_key, recipient_user_id, content, trace_context, routed_via)
  SELECT i.account_id, i.phone_number_id, i."to", i.wamid, i.kind, i.template_name, 'accepted', i.client_ref,
    i.campaign_id, i.request_id, i.contact_key, i.recipient_user_id, i.content, i.trace_context, i.routed_via
  FROM input i, wamid_lock
  ON CONFLICT (wamid) DO NOTHING
  RETURNING wamid
), audited AS (
  ${AUDIT_INSERT_COLUMNS}
  SELECT i.account_id, i.actor, COALESCE(i.audit_action, 'api.messages.send'), COALESCE(i.audit_target, 'message:' || i.wamid),
    i.request_id, i.audit_details
  FROM stored s JOIN input i ON i.wamid = s.wamid
), completed AS (
  UPDATE idempotency_keys k SET state = 'completed', outcome = i.outcome, wamid = COALESCE(i.wamid, k.wamid), updated_at = now()
  FROM input i
  WHERE k.id = i.reservation_id AND k.provider_called_at IS NOT NULL
    AND (k.state = 'in_flight' OR k.outcome ->> 'kind' IS DISTINCT FROM 'sent')
  RETURNING k.id
)
SELECT (SELECT count(*) FROM stored)::int AS stored, (SELECT count(*) FROM completed)::int AS completed`;

// Statuses that arrived before the sends committed, taken in the same transaction, in a statement after the one that
// took the wamids' locks: its snapshot is taken once the locks are ours, so it sees every status a webhook parked under
// one of them before us (see lockWamids).
const TAKE_EARLY_STATUSES = `DELETE FROM early_statuses WHERE wamid = ANY($1::text[]) RETURNING id, wamid, payload`;

/**
 * Record accepted sends in one transaction: each message and its audit entry, each Idempotency-Key's final answer,
 * the orders they open or move, and the deliveries of statuses that arrived first. Idempotent, so the journal may
 * replay it. Returns, per send, the deliveries to queue. Four round trips whatever the number of sends: BEGIN, the
 * commit statement, the early statuses, COMMIT (docs/performance.md); a send with an order adds its own.
 */
export async function recordAcceptedSends(
  deps: { db: Db },
  sends: readonly AcceptedSend[],
): Promise<CommittedDelivery[][]> {
  if (sends.length === 0) return [];
  return inTransaction(deps.db.sql, async (client) => {
    await client.query({
      name: "record-accepted-sends",
      text: RECORD_ACCEPTED_SENDS,
      values: [
        sends.map((s) => s.accountId),
        sends.map((s) => s.phoneNumberId),
        sends.map((s) => s.to),
        sends.map((s) => s.wamid),
        sends.map((s) => s.kind),
        sends.map((s) => s.templateName),
        sends.map((s) => s.clientRef),
        sends.map((s) => s.campaignId),
        sends.map((s) => s.requestId),
        sends.map((s) => s.contactKey ?? s.to),
        sends.map((s) => s.recipientUserId ?? null),
        sends.map((s) => s.actor),
        sends.map((s) => JSON.stringify(s.auditDetails ?? { to: s.to, type: s.kind, template: s.templateName })),
        sends.map((s) => s.reservationId),
        sends.map((s) => JSON.stringify(sentOutcome(s))),
        sends.map((s) => contentValue(s)),
        sends.map((s) => s.auditAction ?? null),
        sends.map((s) => s.auditTarget ?? null),
        sends.map((s) => s.traceparent ?? null),
        sends.map((s) => s.routedVia ?? null),
      ],
    });
    const pending: PendingDelivery[][] = sends.map(() => []);
    for (const [index, send] of sends.entries()) {
      if (!send.order) continue;
      // Issue 28: the order opens (Pix send) or moves (order_status) in this same transaction. An order_status that
      // moved its order: `order.updated` (status_sent) to the integrations that chose it, before the events of the
      // message's early statuses.
      const moved = await recordAcceptedOrder(client, { ...send, order: send.order });
      if (moved !== null) pending[index]?.push(...(await orderStatusSentDeliveries(client, send.wamid)));
    }
    const early = await client.query<{ id: string; wamid: string; payload: ProviderStatusUpdate }>({
      name: "take-early-statuses-of-sends",
      text: TAKE_EARLY_STATUSES,
      values: [sends.map((s) => s.wamid)],
    });
    if (early.rows.length > 0) {
      for (const [index, send] of sends.entries()) {
        const mine = early.rows.filter((row) => row.wamid === send.wamid);
        if (mine.length === 0) continue;
        // Arrival order (ids are int8, returned as strings by pg).
        mine.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
        pending[index]?.push(
          ...(await applyStatuses(
            client,
            mine.map((row) => row.payload),
            { parkUnknown: false },
          )),
        );
      }
    }
    // Each send's deliveries inserted apart (rare: an order moved, or statuses that came first): each send queues its
    // own after the commit, so a job carrying the first attempts of several deliveries must not span two sends.
    const bySend: CommittedDelivery[][] = [];
    for (const list of pending) bySend.push(await insertDeliveries(client, list));
    return bySend;
  });
}

/** `recordAcceptedSends` for one send (the journal's replay, a send recorded alone). */
export async function recordAcceptedSend(deps: { db: Db }, send: AcceptedSend): Promise<CommittedDelivery[]> {
  return (await recordAcceptedSends(deps, [send]))[0] ?? [];
}

/** Records accepted sends, several of them together when they come at once (group commit). */
export interface SendRecorder {
  record(send: AcceptedSend): Promise<CommittedDelivery[]>;
}

/**
 * Group commit of accepted sends (batching/group-calls.ts), as status webhooks have: a send that finds a free slot is
 * recorded at once, alone; the ones accepted meanwhile share the next transaction, so under load each commit (and its
 * WAL flush) serves many sends. A batch that fails for a reason other than the database being unavailable is recorded
 * again send by send, so one send's error never becomes the others'.
 */
export function createSendRecorder(
  deps: { db: Db },
  options: { maxBatch: number; maxInFlight: number; onBatch?: (size: number) => void },
): SendRecorder {
  const grouped = groupCalls<AcceptedSend, CommittedDelivery[]>(async (sends) => {
    try {
      return (await recordAcceptedSends(deps, sends)).map((value) => ({ ok: true, value }));
    } catch (error) {
      if (sends.length === 1 || isDatabaseUnavailable(error)) throw error;
      return Promise.all(
        sends.map((send) =>
          recordAcceptedSend(deps, send).then(
            (value): CallOutcome<CommittedDelivery[]> => ({ ok: true, value }),
            (e: unknown): CallOutcome<CommittedDelivery[]> => ({ ok: false, error: e }),
          ),
        ),
      );
    }
  }, options);
  return { record: (send) => grouped.call(send) };
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
    journal: SendJournal | null;
    logger: Logger;
    commitPolicy?: CommitPolicy;
    /** Group commit of concurrent sends; absent, each send is recorded alone. */
    recorder?: SendRecorder | undefined;
  },
  send: AcceptedSend,
): Promise<CommitOutcome> {
  const policy = deps.commitPolicy ?? DEFAULT_COMMIT_POLICY;
  const deadline = Date.now() + policy.retryForMs;
  let delay = policy.firstDelayMs;
  let lastError: unknown;
  for (;;) {
    try {
      const deliveries = deps.recorder ? await deps.recorder.record(send) : await recordAcceptedSend(deps, send);
      return { kind: "committed", deliveries };
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
