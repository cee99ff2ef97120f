import { isDatabaseUnavailable, type Db } from "@gw/db";

/**
 * Retention (docs/decisions.md, "Retention"): rows past their time are deleted, or stripped of the personal data
 * they hold, by the dispatcher's maintenance loop. Every purge works in bounded batches, one short statement (one
 * transaction) each, reading the rows through an index ordered by age; `FOR UPDATE SKIP LOCKED` lets several
 * dispatcher pods run the same purge at once without waiting for each other or deleting a row twice.
 */
export interface RetentionDeps {
  db: Pick<Db, "sql">;
}

export interface PurgeInput {
  /** Rows older than this are purged; younger ones are left alone. */
  olderThan: Date;
  /** Rows per statement: each batch is its own short transaction. */
  batchSize: number;
  /** Checked between batches: once aborted (dispatcher shutdown) the purge returns what it did so far. */
  signal?: AbortSignal;
}

/** What each purge removes, in the order `runRetention` runs them; also the `table` label of the metric. */
export const RETENTION_TARGETS = [
  "early_statuses",
  "provider_events",
  "deliveries.delivered",
  "deliveries.failed",
  "delivery_attempts.response_body",
  "inbound_messages",
  "inbound_messages.content",
  "inbound_messages.details",
  "inbound_messages.payment",
  "messages.content",
  "account_media",
  "account_media.received",
  "orders",
  "contacts",
  "contacts.profile",
  "audit_entries",
] as const;
export type RetentionTarget = (typeof RETENTION_TARGETS)[number];

/** Days each target is kept; 0 (or absent) keeps it for ever. */
export type RetentionDays = Partial<Record<RetentionTarget, number>>;

const DAY_MS = 86_400_000;

interface BatchStatement {
  name: string;
  text: string;
  extra?: unknown[];
}

/** One statement of `text` ($1 the cut-off, $2 the batch size, then `extra`) repeated until a batch is not full. */
async function inBatches(deps: RetentionDeps, statement: BatchStatement, input: PurgeInput): Promise<number> {
  const { olderThan, batchSize, signal } = input;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be ≥ 1, got ${batchSize}`);
  if (Number.isNaN(olderThan.getTime())) throw new RangeError("olderThan is not a valid date");
  let total = 0;
  while (!signal?.aborted) {
    const { rowCount } = await deps.db.sql.query({
      name: statement.name,
      text: statement.text,
      values: [olderThan, batchSize, ...(statement.extra ?? [])],
    });
    const done = rowCount ?? 0;
    total += done;
    // A short batch means nothing is left, or the rest is locked by another pod, which finishes it.
    if (done < batchSize) break;
  }
  return total;
}

/** A purge that is one statement (`inBatches`) with the caller's cut-off and batch size. */
type Purge = (deps: RetentionDeps, input: PurgeInput) => Promise<number>;
const batched =
  (statement: BatchStatement): Purge =>
  (deps, input) =>
    inBatches(deps, statement, input);

/** Deletes the rows of `table` whose `age` column is before the cut-off (and that match `condition`), oldest first. */
function deleteOlder(name: string, table: string, age: string, condition?: string): BatchStatement {
  return {
    name,
    text: `DELETE FROM ${table} WHERE id IN (
        SELECT id FROM ${table} WHERE ${age} < $1${condition ? ` AND ${condition}` : ""}
        ORDER BY ${age} LIMIT $2 FOR UPDATE SKIP LOCKED)`,
  };
}

/**
 * Provider webhook payloads already applied (`processed_at` set) received before `olderThan`. A payload left
 * half-way by an outage stays: Meta's next delivery of it finishes it, and it is the record of what was not applied.
 */
export const purgeProviderEvents: Purge = batched(
  deleteOlder("retention-provider-events", "provider_events", "received_at", "processed_at IS NOT NULL"),
);

/** Clears the integrator's answer (`response_body`) of attempts started before `olderThan`; the rows stay. */
export const purgeAttemptResponseBodies: Purge = batched({
  name: "retention-attempt-bodies",
  text: `UPDATE delivery_attempts SET response_body = NULL WHERE id IN (
        SELECT id FROM delivery_attempts WHERE started_at < $1 AND response_body IS NOT NULL
        ORDER BY started_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
});

/**
 * Deliveries in a final state (`delivered`, or `failed`: a dead letter) since before `olderThan` (`updated_at` is
 * when they reached it), with their attempts (ON DELETE CASCADE). A delivery re-queued meanwhile is `pending`
 * again and is not touched; pending and delivering ones never are.
 */
export function purgeDeliveries(
  deps: RetentionDeps,
  input: PurgeInput & { status: "delivered" | "failed" },
): Promise<number> {
  // The status is written into the statement (one of two literals, never input): the partial index of settled
  // deliveries serves it only when the planner sees the status, which a parameter hides from a prepared statement.
  return inBatches(
    deps,
    {
      name: `retention-deliveries-${input.status}`,
      text: `DELETE FROM deliveries WHERE id IN (
        SELECT id FROM deliveries WHERE status = '${input.status === "failed" ? "failed" : "delivered"}' AND updated_at < $1
        ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    },
    input,
  );
}

/** Statuses parked before `olderThan` whose message never appeared (a send that was never recorded). */
export const purgeEarlyStatuses: Purge = batched(
  deleteOlder("retention-early-statuses", "early_statuses", "received_at"),
);

/**
 * Clears the contact's personal content from inbound messages stored before `olderThan` — the text (or caption,
 * button label), the contact's profile name and username, the media id and the document's file name — keeping the row (wamid,
 * type, number, times) until `purgeInboundMessages` deletes it. The 24 h window lives in contact_windows.
 */
export const purgeInboundContent: Purge = batched({
  name: "retention-inbound-content",
  text: `UPDATE inbound_messages SET text = NULL, contact_name = NULL, from_username = NULL, media_id = NULL,
          media_filename = NULL
        WHERE id IN (
          SELECT id FROM inbound_messages
          WHERE created_at < $1
            AND (text IS NOT NULL OR contact_name IS NOT NULL OR media_id IS NOT NULL OR media_filename IS NOT NULL)
          ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
});

/**
 * Clears what payload version 2 adds to inbound messages stored before `olderThan` (issue 27): the option tapped,
 * location, contact cards, reaction, ad referral (`details`), the media's checksum and voice flag. Its own statement
 * and partial index, run with the contact's content (INBOUND_TEXT_RETENTION_DAYS).
 */
export const purgeInboundDetails: Purge = batched({
  name: "retention-inbound-details",
  text: `UPDATE inbound_messages SET details = NULL, media_sha256 = NULL, media_voice = NULL, payment = NULL
        WHERE id IN (
          SELECT id FROM inbound_messages
          WHERE created_at < $1 AND (details IS NOT NULL OR media_sha256 IS NOT NULL)
          ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
});

/**
 * Clears the payment-method answer (`payment`: credential id, last four digits, reference) of inbound messages stored
 * before `olderThan` that carry nothing else `purgeInboundDetails` clears: with the contact's content
 * (INBOUND_TEXT_RETENTION_DAYS), not with the row (INBOUND_RETENTION_DAYS). Read through the partial index of the rows
 * that still hold one (`inbound_messages_payment_ref_idx`, `payment IS NOT NULL`): the answers of the last days only,
 * few next to the inbound messages.
 */
export const purgeInboundPayments: Purge = batched({
  name: "retention-inbound-payments",
  text: `UPDATE inbound_messages SET payment = NULL
        WHERE id IN (
          SELECT id FROM inbound_messages WHERE created_at < $1 AND payment IS NOT NULL
          ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
});

/**
 * Clears the summary of what a send carried (`messages.content`: buttons and list rows, media ids and file names,
 * reactions, locations) from sends made before `olderThan`, with the contact's inbound content; the send's row
 * (wamid, kind, statuses, pricing) stays.
 */
export const purgeMessageContent: Purge = batched({
  name: "retention-message-content",
  text: `UPDATE messages SET content = NULL
        WHERE id IN (
          SELECT id FROM messages WHERE created_at < $1 AND content IS NOT NULL
          ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
});

/**
 * Media records (`account_media`) whose media Meta stopped keeping before `olderThan` (its `expires_at`): until then
 * the API answers 410 `media_expired` for them, afterwards 404 like an unknown id.
 */
export const purgeAccountMedia: Purge = batched(deleteOlder("retention-account-media", "account_media", "expires_at"));

/** How long Meta keeps a received media: a received record's `expires_at` is its message's time plus this. */
const RECEIVED_MEDIA_LIFETIME_DAYS = 7;

/**
 * Records of media the account received (`account_media`, origin `received`: the media id that lets
 * GET /public/v1/media/{id} fetch it from Meta, its file name and checksum) whose message came before `olderThan`:
 * the contact's content, kept as long as the inbound message's media id and file name (INBOUND_TEXT_RETENTION_DAYS),
 * so shorter than Meta's 7 days when that is shorter (then 404), and never the 30 days past Meta's expiry that
 * uploads keep. Read by `expires_at` (the message's time plus Meta's 7 days), through its index.
 */
export const purgeReceivedMedia: Purge = batched({
  name: "retention-received-media",
  text: `DELETE FROM account_media WHERE id IN (
        SELECT id FROM account_media
        WHERE expires_at < $1::timestamptz + interval '${RECEIVED_MEDIA_LIFETIME_DAYS} days' AND origin = 'received'
        ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
});

/**
 * Pix orders (issue 28) whose last change — the order's, or one of its messages' (a status update claimed or sent) —
 * came before `olderThan`, deleted with their messages (ON DELETE CASCADE): the recipient, the items, the payment
 * settings and the status texts go together, whatever the order's status. GET answers 404 for them from then on.
 */
export const purgeOrders: Purge = batched({
  name: "retention-orders",
  text: `DELETE FROM orders WHERE id IN (
        SELECT id FROM orders
        WHERE updated_at < $1
          AND NOT EXISTS (SELECT 1 FROM order_messages m WHERE m.order_id = orders.id AND m.updated_at >= $1)
        ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
});

/** Inbound messages stored before `olderThan`. */
export const purgeInboundMessages: Purge = batched(
  deleteOlder("retention-inbound-messages", "inbound_messages", "created_at"),
);

/**
 * Clears the display data of contacts (name, username) not seen with it since `olderThan`: `updated_at` is their last
 * change, or the last day a webhook showed their name or username (gateway_learn_contact). The same rule as an inbound
 * message's profile name and username (`purgeInboundContent`); the identifiers stay, since opt-outs, windows and the
 * history are reached through them (`purgeContacts` forgets a contact once nothing needs it).
 */
export const purgeContactProfiles: Purge = batched({
  name: "retention-contact-profiles",
  // updated_at stays: clearing is not seeing the contact again.
  text: `UPDATE contacts SET name = NULL, username = NULL
        WHERE (account_id, key) IN (
          SELECT account_id, key FROM contacts
          WHERE updated_at < $1 AND (name IS NOT NULL OR username IS NOT NULL)
          ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
});

/**
 * Forgets contacts unchanged since `olderThan` that nothing is keyed by any more — no opt-out (a legal record, kept
 * for ever with its contact), no message, no inbound message, no open window — deleting them with their identifiers
 * (gateway_forget_contacts). One pass over the old contacts in `updated_at` order, `batchSize` at a time, each batch
 * its own statement; the contacts still in use are looked at and left.
 */
export async function purgeContacts(deps: RetentionDeps, input: PurgeInput): Promise<number> {
  const { olderThan, batchSize, signal } = input;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be ≥ 1, got ${batchSize}`);
  if (Number.isNaN(olderThan.getTime())) throw new RangeError("olderThan is not a valid date");
  let after: [Date | null, string | null, string | null] = [null, null, null];
  let total = 0;
  while (!signal?.aborted) {
    const { rows } = await deps.db.sql.query<{
      scanned: number;
      forgotten: number;
      last_at: Date | null;
      last_account: string | null;
      last_key: string | null;
    }>({
      name: "retention-contacts",
      text: `SELECT * FROM gateway_forget_contacts($1, $2, $3, $4, $5)`,
      values: [olderThan, batchSize, ...after],
    });
    const row = rows[0];
    total += row?.forgotten ?? 0;
    if (!row || row.scanned < batchSize) break;
    after = [row.last_at, row.last_account, row.last_key];
  }
  return total;
}

/**
 * Idempotency-Key records past their expiry (the dispatcher's purge loop, hourly), in the same bounded batches as
 * the retention purges, so a large backlog never becomes one long-running delete holding locks.
 */
export async function purgeExpiredIdempotencyKeys(
  deps: RetentionDeps,
  input: { now?: Date; batchSize?: number; settledCampaignKeyHours?: number } = {},
): Promise<number> {
  const now = input.now ?? new Date();
  const batchSize = input.batchSize ?? 5_000;
  const expired = await inBatches(deps, deleteOlder("idempotency-purge", "idempotency_keys", "expires_at"), {
    olderThan: now,
    batchSize,
  });
  // Campaign recipients' keys never expire by time (ReserveInput.retention): they go once their recipient is no
  // longer `sending` (settled, or deleted with its campaign) and they have not changed for the TTL.
  const settledBefore = new Date(now.getTime() - (input.settledCampaignKeyHours ?? 48) * 3_600_000);
  const settled = await inBatches(
    deps,
    {
      name: "idempotency-purge-settled-campaign-keys",
      text: `DELETE FROM idempotency_keys WHERE id IN (
        SELECT k.id FROM idempotency_keys k
        WHERE k.expires_at = 'infinity' AND k.updated_at < $1
          AND NOT EXISTS (SELECT 1 FROM campaign_recipients r WHERE r.status = 'sending'
            AND r.id = CASE WHEN k.key ~ '^campaign:[0-9]{1,18}$' THEN substr(k.key, 10)::bigint END)
        ORDER BY k.updated_at LIMIT $2 FOR UPDATE OF k SKIP LOCKED)`,
    },
    { olderThan: settledBefore, batchSize },
  );
  return expired + settled;
}

/** Panel sessions past their expiry (the dispatcher's purge loop), in the same bounded batches. */
export function purgeExpiredPanelSessions(
  deps: RetentionDeps,
  input: { now?: Date; batchSize?: number } = {},
): Promise<number> {
  return inBatches(deps, deleteOlder("panel-sessions-purge", "panel_sessions", "expires_at"), {
    olderThan: input.now ?? new Date(),
    batchSize: input.batchSize ?? 5_000,
  });
}

/** Audit entries written before `olderThan`. */
export const purgeAuditEntries: Purge = batched(deleteOlder("retention-audit-entries", "audit_entries", "created_at"));

const PURGES: Record<RetentionTarget, Purge> = {
  early_statuses: purgeEarlyStatuses,
  provider_events: purgeProviderEvents,
  "deliveries.delivered": (deps, input) => purgeDeliveries(deps, { ...input, status: "delivered" }),
  "deliveries.failed": (deps, input) => purgeDeliveries(deps, { ...input, status: "failed" }),
  // After the deliveries: attempts of deleted deliveries are gone already.
  "delivery_attempts.response_body": purgeAttemptResponseBodies,
  inbound_messages: purgeInboundMessages,
  // After the rows: content is cleared only from rows that stay.
  "inbound_messages.content": purgeInboundContent,
  "inbound_messages.details": purgeInboundDetails,
  "inbound_messages.payment": purgeInboundPayments,
  "messages.content": purgeMessageContent,
  account_media: purgeAccountMedia,
  "account_media.received": purgeReceivedMedia,
  orders: purgeOrders,
  // After the inbound messages: a contact whose last ones just went is no longer in use.
  contacts: purgeContacts,
  // After the contacts: display data is cleared only from contacts that stay.
  "contacts.profile": purgeContactProfiles,
  audit_entries: purgeAuditEntries,
};

export interface RetentionInput {
  days: RetentionDays;
  batchSize: number;
  /** The clock the cut-offs are taken from (tests pass their own). */
  now?: Date;
  signal?: AbortSignal;
}

export interface RetentionResult {
  /** Rows deleted (or cleared, for `.response_body` and `.content`) per target that ran; 0 included. */
  purged: Partial<Record<RetentionTarget, number>>;
  /** Targets whose purge failed; the others still ran. */
  failed: Partial<Record<RetentionTarget, Error>>;
}

/**
 * Every enabled purge once, in `RETENTION_TARGETS` order. A purge that fails does not stop the others, unless the
 * database is unavailable: then the error is thrown (the next cycle tries again).
 */
export async function runRetention(deps: RetentionDeps, input: RetentionInput): Promise<RetentionResult> {
  const now = (input.now ?? new Date()).getTime();
  const result: RetentionResult = { purged: {}, failed: {} };
  for (const target of RETENTION_TARGETS) {
    const days = input.days[target] ?? 0;
    if (days <= 0) continue;
    if (input.signal?.aborted) break;
    const purgeInput = { olderThan: new Date(now - days * DAY_MS), batchSize: input.batchSize, signal: input.signal };
    try {
      result.purged[target] = await PURGES[target](deps, purgeInput);
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error;
      result.failed[target] = error instanceof Error ? error : new Error(String(error));
    }
  }
  return result;
}

/**
 * Age in seconds of the oldest status still parked in early_statuses (0 when none), by the database's clock:
 * one read of the `received_at` index. A status parked for long belongs to a send that was never recorded.
 */
export async function oldestEarlyStatusAgeSeconds(deps: RetentionDeps): Promise<number> {
  const { rows } = await deps.db.sql.query<{ age: number | null }>({
    name: "oldest-early-status-age",
    text: `SELECT EXTRACT(EPOCH FROM now() - min(received_at))::float8 AS age FROM early_statuses`,
  });
  return Math.max(0, rows[0]?.age ?? 0);
}
