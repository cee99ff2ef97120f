import { MESSAGE_STATUS_RANK, type MessageStatus } from "@gw/contracts";
import { mapMetaError } from "@gw/errors";
import type { Sql } from "@gw/db";
import { messageOrderingKey } from "../deliveries/attempt/ordering.ts";
import type { PendingDelivery } from "../deliveries/attempt/outbox.ts";
import { orderMessageStatusDeliveries } from "./order-updated.ts";

/**
 * The message status machine of spec 3.1. `accepted` is our own state between the provider's synchronous
 * acceptance and its first `sent` status, so that `sent` is itself a change and reaches the integrator.
 */
export type ProviderStatus = MessageStatus;
export type StoredStatus = ProviderStatus | "accepted";

/** Whether `next` replaces `current`. Failures are not compared by rank (spec 3.1). */
export function shouldApply(current: StoredStatus, next: ProviderStatus): boolean {
  if (current === "failed") return false;
  if (next === "failed") return current === "accepted" || current === "sent";
  if (current === "accepted") return true;
  return MESSAGE_STATUS_RANK[next] > MESSAGE_STATUS_RANK[current];
}

/**
 * `shouldApply` as a SQL predicate over `m.status` (current) and `i.status` (next), so a whole batch of
 * transitions is decided and applied by one UPDATE under the row locks it takes. Kept equal to the function
 * above by messages.status-machine.sql.test.ts, which runs every (current, next) pair through both.
 */
export const SHOULD_APPLY_SQL = `m.status <> 'failed' AND CASE
    WHEN i.status = 'failed' THEN m.status IN ('accepted', 'sent')
    WHEN m.status = 'accepted' THEN true
    ELSE array_position(ARRAY['sent', 'delivered', 'read'], i.status) > array_position(ARRAY['sent', 'delivered', 'read'], m.status)
  END`;

/** One item of Meta's `value.statuses[]`, as validated at the edge (only the fields we read). */
export interface ProviderStatusUpdate {
  id: string;
  status: string;
  timestamp?: string | undefined;
  recipient_id?: string | undefined;
  /** The recipient's BSUID (every status since 2026, except `failed` ones of a send to a phone). */
  recipient_user_id?: string | undefined;
  recipient_parent_user_id?: string | undefined;
  /** What the send put in `biz_opaque_callback_data` (events/adopt.ts). */
  biz_opaque_callback_data?: string | undefined;
  /** Per-message pricing, on one of the message's statuses; kept verbatim (Meta adds values). */
  pricing?:
    | {
        pricing_model?: string | undefined;
        type?: string | undefined;
        category?: string | undefined;
        billable?: boolean | undefined;
      }
    | undefined;
  errors?:
    | {
        code?: number | undefined;
        title?: string | undefined;
        message?: string | undefined;
        error_data?: { details?: string | undefined } | undefined;
      }[]
    | undefined;
}

export function isProviderStatus(value: string): value is ProviderStatus {
  return Object.hasOwn(MESSAGE_STATUS_RANK, value);
}

/** Meta's timestamps are Unix seconds; anything else (or absurd) falls back to the time we received it. */
function statusTime(timestamp: string | undefined, receivedAt: Date): Date {
  if (!timestamp || !/^\d{1,11}$/.test(timestamp)) return receivedAt;
  const ms = Number(timestamp) * 1000;
  // Meta never reports a status from before the Cloud API existed or from the future.
  return ms < Date.UTC(2015, 0, 1) || ms > receivedAt.getTime() + 86_400_000 ? receivedAt : new Date(ms);
}

interface Transition {
  wamid: string;
  status: ProviderStatus;
  statusAt: Date;
  errorCode: number | null;
  errorMessage: string | null;
  errorReason: string | null;
  recipientUserId: string | null;
  pricing: string | null;
  payload: ProviderStatusUpdate;
}

/**
 * `message.status`'s `pricing` (docs/webhooks.md): the fields Meta sent, verbatim, null when this status carried none.
 * `billable` is deprecated by Meta and not passed on: `type` says whether it is charged (`regular`).
 */
function pricingOf(update: ProviderStatusUpdate): string | null {
  const pricing = update.pricing;
  if (!pricing || (!pricing.category && !pricing.type && !pricing.pricing_model)) return null;
  return JSON.stringify({
    pricing_model: pricing.pricing_model ?? null,
    category: pricing.category ?? null,
    type: pricing.type ?? null,
  });
}

function toTransition(update: ProviderStatusUpdate & { status: ProviderStatus }, receivedAt: Date): Transition {
  const error = update.status === "failed" ? update.errors?.[0] : undefined;
  const errorCode = error?.code ?? null;
  const errorMessage = error ? (error.error_data?.details ?? error.message ?? error.title ?? null) : null;
  return {
    wamid: update.id,
    status: update.status,
    statusAt: statusTime(update.timestamp, receivedAt),
    errorCode,
    errorMessage,
    errorReason: update.status === "failed" ? mapMetaError(errorCode ?? -1, errorMessage) : null,
    recipientUserId: update.recipient_user_id ?? null,
    pricing: pricingOf(update),
    payload: update,
  };
}

/** Meta's "this recipient has chosen to stop receiving marketing messages from your business". */
const OPTED_OUT_CODE = 131050;

/**
 * Meta's "parameter value is not valid" on a reaction, failed after the send: its target is not a message of that
 * contact from the last 30 days (meta-messages.md §3.1). The gateway checks the target before Meta; Meta's later
 * refusal keeps the same code (`reaction_target_not_found`), decided here where the message's kind is known.
 */
const REACTION_TARGET_CODE = 131009;

interface AppliedRow {
  event: "message.status" | "order.updated";
  /** The status's position in its round. */
  ord: number;
  account_id: string;
  wamid: string;
  status: ProviderStatus;
  to: string;
  recipient_user_id: string | null;
  pricing: StatusPricing | null;
  phone_number_id: string;
  client_ref: string | null;
  campaign_id: string | null;
  error_code: number | null;
  error_message: string | null;
  error_reason: string | null;
  integration_id: string;
  delivery_id: string;
  /** The send's W3C context (messages.trace_context), which the status's delivery joins. */
  trace_context: string | null;
}

/** `message.status`'s `pricing`, when the status Meta sent carried one. */
export interface StatusPricing {
  pricing_model: string | null;
  category: string | null;
  type: string | null;
}

// One statement per round: decide and apply every transition of the round under the rows' locks, keep the pricing
// and the recipient's BSUID of any status that carries them (even one whose transition does not apply: Meta may send
// the pricing on a `sent` that arrives after `delivered`; the event carries a message's pricing once, the first time
// Meta sends it, as Meta may price both `sent` and `delivered`), park the statuses whose message is not stored yet, put on
// the account's suppression list the contacts of marketing templates Meta failed with 131050 (they stopped
// marketing messages; at Meta's time, so a later resume wins), and hand back one (transition, subscribed
// integration) pair per delivery to create, each with its delivery id already drawn (the id is part of the signed
// body).
const APPLY_ROUND = `
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::int[], $5::text[], $6::text[], $7::int[],
      $8::jsonb[], $10::text[], $11::jsonb[])
    AS t(wamid, status, status_at, error_code, error_message, error_reason, ord, payload, recipient_user_id, pricing)
), decided AS (
  -- Decided on the row as it is: the caller holds the wamids' locks, so nothing changes it before the UPDATE.
  SELECT i.*, COALESCE(${SHOULD_APPLY_SQL}, false) AS apply, m.pricing IS NULL AS first_pricing, m.ctid AS message_row
  FROM input i JOIN messages m ON m.wamid = i.wamid
), changed AS (
  UPDATE messages m
  SET status = CASE WHEN d.apply THEN d.status ELSE m.status END,
    status_at = CASE WHEN d.apply THEN d.status_at ELSE m.status_at END,
    error_code = CASE WHEN d.apply THEN d.error_code ELSE m.error_code END,
    error_message = CASE WHEN d.apply THEN d.error_message ELSE m.error_message END,
    error_reason = CASE WHEN NOT d.apply THEN m.error_reason
      WHEN m.kind = 'reaction' AND d.error_code = ${REACTION_TARGET_CODE} THEN 'reaction_target_not_found'
      ELSE d.error_reason END,
    recipient_user_id = COALESCE(d.recipient_user_id, m.recipient_user_id),
    pricing = COALESCE(m.pricing, d.pricing)
  FROM decided d
  -- The row "decided" read, by its address (no second probe of the wamid index). Only this transaction changes a
  -- message's status (it holds the wamids' locks); should another writer have moved the row meanwhile (a merge
  -- re-keying its contact), the update follows it to its latest version, as any UPDATE does.
  WHERE m.ctid = d.message_row AND (d.apply
    OR (d.pricing IS NOT NULL AND m.pricing IS NULL)
    OR (d.recipient_user_id IS NOT NULL AND m.recipient_user_id IS DISTINCT FROM d.recipient_user_id))
  RETURNING m.account_id, m.wamid, m.status, m."to", COALESCE(m.contact_key, m."to") AS contact_key,
    m.recipient_user_id, m.phone_number_id, m.client_ref, m.campaign_id, m.error_code, m.error_message,
    m.error_reason, d.ord, CASE WHEN d.first_pricing THEN d.pricing END AS pricing, d.apply, m.trace_context
), applied AS (
  SELECT * FROM changed WHERE apply
), parked AS (
  -- A status whose message is not stored: "decided" read every stored one, in this same snapshot.
  INSERT INTO early_statuses (wamid, payload)
  SELECT i.wamid, i.payload FROM input i
  WHERE $9::boolean AND NOT EXISTS (SELECT 1 FROM decided d WHERE d.wamid = i.wamid)
  ORDER BY i.ord
), opted_out AS (
  INSERT INTO contact_suppressions (account_id, contact, reason, created_at)
  -- A send that resolved its contact just before a link committed names the bare identifier: its person's key now.
  SELECT a.account_id,
    CASE WHEN EXISTS (SELECT 1 FROM contacts c WHERE c.account_id = a.account_id AND c.key = a.contact_key)
      THEN a.contact_key ELSE gateway_contact_key(a.account_id, a.contact_key) END,
    'provider_131050', i.status_at
  FROM applied a JOIN input i ON i.ord = a.ord
  WHERE a.status = 'failed' AND a.error_code = ${OPTED_OUT_CODE}
  ON CONFLICT (account_id, contact) DO NOTHING
)
SELECT u.*, nextval(pg_get_serial_sequence('deliveries', 'id'))::text AS delivery_id
FROM (
  SELECT 'message.status' AS event, a.ord, a.account_id, a.wamid, a.status, a."to", a.recipient_user_id, a.pricing,
    a.phone_number_id, a.client_ref, a.campaign_id, a.error_code, a.error_message, a.error_reason,
    s.id AS integration_id, s.created_at AS integration_created_at, a.trace_context
  FROM applied a
  JOIN integrations s ON s.account_id = a.account_id AND s.active AND 'message.status' = ANY(s.events)
  UNION ALL
  -- Issue 28: a status of a Pix order's message is also the order's \`order.updated\` for the integrations that chose it
  -- (one probe of order_messages' wamid index per applied status).
  SELECT 'order.updated', a.ord, a.account_id, a.wamid, a.status, a."to", a.recipient_user_id, a.pricing,
    a.phone_number_id, a.client_ref, a.campaign_id, a.error_code, a.error_message, a.error_reason,
    s.id, s.created_at, a.trace_context
  FROM applied a
  JOIN order_messages om ON om.wamid = a.wamid AND om.state = 'accepted'
  JOIN integrations s ON s.account_id = a.account_id AND s.active AND 'order.updated' = ANY(s.events)
) u
ORDER BY u.ord, u.event, u.integration_created_at, u.integration_id`;

export interface ApplyStatusesOptions {
  /** Keep statuses of messages not stored yet in early_statuses (false when replaying them). */
  parkUnknown: boolean;
  receivedAt?: Date;
}

/**
 * Apply provider statuses (spec 3.1) inside the caller's transaction, after the caller took the per-wamid locks
 * (`lockWamids`). Statuses of one message are applied in the order given, one round per position, so a
 * `sent, delivered, read` batch produces three events. Returns the `message.status` deliveries to insert.
 */
export async function applyStatuses(
  sql: Sql,
  updates: readonly ProviderStatusUpdate[],
  options: ApplyStatusesOptions,
): Promise<PendingDelivery[]> {
  return (await applyStatusesTraced(sql, updates, options)).map((traced) => traced.delivery);
}

/** A delivery `applyStatuses` created, with the index in `updates` of the status it came from. */
export interface TracedDelivery {
  delivery: PendingDelivery;
  update: number;
}

/** `applyStatuses`, saying which status each delivery came from (a batch of webhooks answers each its own count). */
export async function applyStatusesTraced(
  sql: Sql,
  updates: readonly ProviderStatusUpdate[],
  options: ApplyStatusesOptions,
): Promise<TracedDelivery[]> {
  const receivedAt = options.receivedAt ?? new Date();
  const rounds: Transition[][] = [];
  const sources: number[][] = [];
  const seen = new Map<string, number>();
  for (const [index, update] of updates.entries()) {
    const { status } = update;
    if (!isProviderStatus(status)) continue;
    const position = seen.get(update.id) ?? 0;
    seen.set(update.id, position + 1);
    (rounds[position] ??= []).push(toTransition({ ...update, status }, receivedAt));
    (sources[position] ??= []).push(index);
  }
  const deliveries: TracedDelivery[] = [];
  for (const [position, round] of rounds.entries()) {
    const { rows } = await sql.query<AppliedRow>({
      name: "apply-status-round",
      text: APPLY_ROUND,
      values: [
        round.map((t) => t.wamid),
        round.map((t) => t.status),
        round.map((t) => t.statusAt),
        round.map((t) => t.errorCode),
        round.map((t) => t.errorMessage),
        round.map((t) => t.errorReason),
        round.map((_, index) => index),
        round.map((t) => JSON.stringify(t.payload)),
        options.parkUnknown,
        round.map((t) => t.recipientUserId),
        round.map((t) => t.pricing),
      ],
    });
    const orderRows = rows.filter((row) => row.event === "order.updated");
    const orderDeliveries = await orderMessageStatusDeliveries(sql, orderRows);
    for (const [index, row] of orderRows.entries()) {
      const delivery = orderDeliveries[index];
      if (delivery) deliveries.push({ delivery, update: sources[position]?.[row.ord] ?? -1 });
    }
    for (const row of rows) {
      if (row.event !== "message.status") continue;
      const delivery: PendingDelivery = {
        id: row.delivery_id,
        accountId: row.account_id,
        integrationId: row.integration_id,
        event: "message.status",
        orderingKey: messageOrderingKey(row.wamid),
        traceContext: row.trace_context,
        data: {
          message_id: row.wamid,
          status: row.status,
          status_rank: MESSAGE_STATUS_RANK[row.status],
          to: row.to,
          recipient_user_id: row.recipient_user_id,
          // Meta always sends errors[] with a failure; 0 stands for "no provider code" should it ever not.
          error:
            row.status === "failed"
              ? { code: row.error_code ?? 0, message: row.error_message ?? "", reason: row.error_reason }
              : null,
          phone_number_id: row.phone_number_id,
          client_ref: row.client_ref,
          campaign_id: row.campaign_id,
          pricing: row.pricing,
        },
      };
      deliveries.push({ delivery, update: sources[position]?.[row.ord] ?? -1 });
    }
  }
  return deliveries;
}

/**
 * Serializes, per wamid, the send's commit with the provider's statuses for it. Without it a status whose
 * webhook runs while the send transaction is still open neither sees the new row nor waits for it: it would
 * be parked in early_statuses after the send had already looked there, and never applied. Locks are taken in
 * one order (by hash) so two webhooks touching the same messages cannot deadlock.
 */
export async function lockWamids(sql: Sql, wamids: readonly string[]): Promise<void> {
  if (wamids.length === 0) return;
  await sql.query({
    name: "lock-wamids",
    text: `SELECT count(pg_advisory_xact_lock(h)) FROM (SELECT DISTINCT hashtextextended(w, 0) AS h FROM unnest($1::text[]) AS w ORDER BY 1) AS l`,
    values: [wamids],
  });
}

/**
 * Statuses that arrived before the send committed, applied in arrival order right after it (inside the send's
 * transaction, under its wamid lock), then forgotten.
 */
export async function applyEarlyStatuses(sql: Sql, wamid: string): Promise<PendingDelivery[]> {
  const { rows } = await sql.query<{ id: string; payload: ProviderStatusUpdate }>({
    name: "take-early-statuses",
    text: `DELETE FROM early_statuses WHERE wamid = $1 RETURNING id, payload`,
    values: [wamid],
  });
  if (rows.length === 0) return [];
  // Arrival order (ids are int8, returned as strings by pg).
  rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  return applyStatuses(
    sql,
    rows.map((row) => row.payload),
    { parkUnknown: false },
  );
}
