import type { Db } from "@gw/db";
import type { CampaignStatus } from "@gw/contracts";
import { ApiError, ERROR_REGISTRY } from "@gw/errors";
import type { CampaignWake } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import { MetaApiError } from "@gw/meta";
import { recipientCallbackData } from "../events/adopt.ts";
import { sendMessage, type SendDeps } from "../messages/send.ts";
import type { RecipientParameters } from "./recipients.ts";

/**
 * The campaign worker's side (apps/campaign-worker): one tick sends to a running campaign's recipients for a while,
 * paced by the number's turns, and says when it should run again. Everything it decides is in PostgreSQL; the job
 * that runs it only says "look at this campaign now".
 *
 * A recipient is reserved once (`queued` -> `sending`, one conditional UPDATE) before its send, and sent through
 * the public API's send service with the Idempotency-Key `campaign:<recipient id>`. A worker killed mid-send leaves
 * the row `sending`; after `redriveAfterMs` the next tick sends it again with the same key, and the idempotency
 * store answers for it: a completed send replays its answer (the recipient becomes `sent`, nothing goes out); a
 * reservation that never reached the provider is freed and the message goes out once; one that reached the provider
 * without an answer is settled as `send_unconfirmed` (the recipient fails with that code, nothing is resent) —
 * unless Meta's status webhook proves the send first, or later: each send carries its recipient in Meta's
 * `biz_opaque_callback_data`, and the status records it as sent (events/adopt.ts). A recipient's key is kept while
 * the recipient is `sending` (`retention: until-settled`), so a campaign paused for longer than the keys' TTL still
 * redrives with its key.
 *
 * Several processes may tick one campaign at once (its shares, one tick job each; apps/campaign-worker): each claims
 * batches of recipients with `FOR UPDATE SKIP LOCKED`, so a recipient is claimed by one of them, and every send takes
 * the number's turn from the one pacing in Redis (throughput/), so together they never pass the number's rate. A
 * dead process's claimed batch is the abandoned rows above: re-driven by whichever tick comes first. Each claim names
 * the claiming process's lease (`claim_owner`, process_leases, as Idempotency-Key reservations do): once that lease
 * has run out or is gone (the process died), its rows are abandoned at once; a live owner's only after
 * `redriveAfterMs`, the one rule for claims without an owner.
 */

export interface CampaignRunSettings {
  /** Most sends in flight (waiting for a turn included) for one campaign in this process. */
  concurrency: number;
  /**
   * A recipient `sending` for longer than this is sent again with the same key, whoever claimed it: the rule for a
   * claim without an owner (the previous release's, or one made while the lease had lapsed) and the backstop for a
   * live owner's (a tick that failed half-way). A claim whose owner's lease ran out is re-driven at once instead. Must
   * exceed the longest a live send takes (turn wait + provider deadline) and the idempotency store's stale bound.
   */
  redriveAfterMs: number;
  /** How long one tick sends before it hands the campaign back to the queue (other campaigns get their turn). */
  tickBudgetMs: number;
  /** Claims of one recipient (refusals for a passing reason included) before it fails for good. */
  maxAttempts: number;
  /** How often a tick looks at the campaign's status (a pause or cancel stops it within this). */
  statusPollMs: number;
}

export const DEFAULT_CAMPAIGN_RUN_SETTINGS: CampaignRunSettings = {
  concurrency: 200,
  redriveAfterMs: 90_000,
  tickBudgetMs: 20_000,
  maxAttempts: 25,
  statusPollMs: 500,
};

export interface CampaignRunnerDeps {
  db: Db;
  /** The public API's send service, with its pacing (`throughput`). */
  send: SendDeps;
  logger: Logger;
  settings: CampaignRunSettings;
  /**
   * This process's lease (process_leases.owner, `createSendDeps`' lease): recorded on the recipients it claims while
   * the lease is live, so that once it runs out (the process died) any tick re-drives them at once. Absent: claims
   * name no owner and only `redriveAfterMs` re-drives them.
   */
  owner?: string | null;
}

export type TickOutcome =
  { kind: "done"; status: CampaignStatus | "missing"; sent: number } | { kind: "again"; at: Date; sent: number };

/** The Idempotency-Key of a recipient's send: the same on every try, so no try can send it twice. */
export function recipientIdempotencyKey(recipientId: string | number | bigint): string {
  return `campaign:${recipientId}`;
}

/**
 * Refusals that mean the recipient was deliberately not sent to, as opposed to a failure: the contact opted out of
 * marketing messages (the account's suppression list, or Meta's 131050). The recipient ends `skipped`.
 */
export const SKIPPED_CODES: ReadonlySet<string> = new Set<string>(["recipient_opted_out"]);

/**
 * Refusals that say nothing about the recipient: nothing was sent, and a later try may go through. A blocked account
 * (`account_disabled`) pauses its campaigns in the same transaction; a send that was already on its way waits too.
 */
const RETRY_LATER: ReadonlySet<string> = new Set([
  "rate_limited",
  "templates_unavailable",
  "provider_unavailable",
  "service_unavailable",
  "account_disabled",
]);

interface CampaignRunRow {
  id: string;
  account_id: string;
  status: CampaignStatus;
  start_at: Date | null;
  phone_number_id: string;
  template_name: string;
  template_language: string;
}

interface ClaimedRecipient {
  id: string;
  contact: string;
  parameters: RecipientParameters | null;
  client_ref: string | null;
  attempts: number;
}

const CLAIM_COLUMNS = "r.id, r.contact, r.parameters, r.client_ref, r.attempts";
const CAMPAIGN_RUNNING = `EXISTS (SELECT 1 FROM campaigns c WHERE c.id = $1::uuid AND c.status = 'running')`;

/** The claiming process's lease (parameter `me`), only while it is live: a claim made while it lapsed names no one. */
const claimingOwner = (me: string) =>
  `(SELECT owner FROM process_leases WHERE owner = ${me}::uuid AND expires_at > now())`;

/**
 * Whether the `sending` row `alias` is abandoned: its owner's lease has run out or is gone (never this process's own,
 * `me`: it knows it is alive), or it was claimed longer than `redriveAfterMs` ago, whoever holds it.
 */
function abandoned(alias: string, me: string, redriveAfterMs: string): string {
  return `(${alias}.reserved_at < now() - make_interval(secs => ${redriveAfterMs} / 1000.0)
    OR (${alias}.claim_owner IS NOT NULL AND ${alias}.claim_owner IS DISTINCT FROM ${me}::uuid
      AND NOT EXISTS (SELECT 1 FROM process_leases l WHERE l.owner = ${alias}.claim_owner AND l.expires_at > now())))`;
}

// The reservation: a recipient leaves `queued` once, in this statement, and only while the campaign runs.
const CLAIM_QUEUED = `
UPDATE campaign_recipients r SET status = 'sending', reserved_at = now(), attempts = r.attempts + 1, updated_at = now(),
  claim_owner = ${claimingOwner("$3")}
WHERE r.id IN (
    SELECT id FROM campaign_recipients
    WHERE campaign_id = $1::uuid AND status = 'queued' AND (not_before IS NULL OR not_before <= now())
    ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
  AND r.status = 'queued' AND ${CAMPAIGN_RUNNING}
RETURNING ${CLAIM_COLUMNS}`;

// Rows a dead worker left `sending`: taken again (same key) by whoever claims them first, now under its own lease.
const CLAIM_ABANDONED = `
UPDATE campaign_recipients r SET reserved_at = now(), attempts = r.attempts + 1, updated_at = now(),
  claim_owner = ${claimingOwner("$4")}
WHERE r.id IN (
    SELECT a.id FROM campaign_recipients a
    WHERE a.campaign_id = $1::uuid AND a.status = 'sending' AND ${abandoned("a", "$4", "$3")}
    ORDER BY a.id LIMIT $2 FOR UPDATE OF a SKIP LOCKED)
  AND r.status = 'sending' AND ${CAMPAIGN_RUNNING}
RETURNING ${CLAIM_COLUMNS}`;

/**
 * How often a tick looks for abandoned rows while it sends (a lease that ran out meanwhile): on its own timer, not only
 * when its lanes ask for more, since lanes held by slow provider answers may not ask for seconds.
 */
const ABANDONED_RECHECK_MS = 500;
/**
 * Abandoned rows taken in one claim, in lanes: a dead process held at most its lanes of each share it ticked, so a
 * few lanes' worth adopts its whole batch at once, and the buffer drains it within seconds at the number's rate.
 */
const ABANDONED_CLAIM_LANES = 4;

// Recipients the provider accepted, many per statement (`SentMarks`).
const MARK_SENT = `UPDATE campaign_recipients r SET status = 'sent', wamid = v.wamid, message_id = m.id,
    error_code = NULL, error_message = NULL, not_before = NULL, updated_at = now()
  FROM unnest($1::bigint[], $2::text[]) AS v(id, wamid) LEFT JOIN messages m ON m.wamid = v.wamid
  WHERE r.id = v.id AND r.status = 'sending'`;
const MARK_FINAL = `UPDATE campaign_recipients SET status = $2, error_code = $3, error_message = $4,
    wamid = COALESCE($5, wamid), message_id = COALESCE((SELECT id FROM messages WHERE wamid = $5), message_id),
    updated_at = now()
  WHERE id = $1 AND status = 'sending'`;
// Back in the queue, a row names no owner (a claimer of the previous release would leave a stale one in place).
const REQUEUE = `UPDATE campaign_recipients SET status = 'queued', reserved_at = NULL, claim_owner = NULL,
    not_before = now() + make_interval(secs => $2 / 1000.0), error_code = $3, error_message = $4, updated_at = now()
  WHERE id = $1 AND status = 'sending'`;
const KEEP_SENDING = `UPDATE campaign_recipients SET reserved_at = now(), updated_at = now() WHERE id = $1 AND status = 'sending'`;
// Claimed but never tried (the tick stopped first): back to the queue as if never claimed.
const RELEASE = `UPDATE campaign_recipients SET status = 'queued', reserved_at = NULL, claim_owner = NULL,
    attempts = attempts - 1, updated_at = now()
  WHERE id = ANY($1::bigint[]) AND status = 'sending'`;

async function loadRunRow(db: Db, campaignId: string): Promise<CampaignRunRow | null> {
  const { rows } = await db.sql.query<CampaignRunRow>({
    name: "campaign-run-row",
    text: `SELECT id, account_id, status, start_at, phone_number_id, template_name, template_language
      FROM campaigns WHERE id = $1::uuid`,
    values: [campaignId],
  });
  return rows[0] ?? null;
}

/** How long a recipient refused for a passing reason waits before it is claimed again. */
function retryDelayMs(deps: CampaignRunnerDeps, error: ApiError, attempts: number): number {
  const policy = deps.send.throughput?.policy;
  const cause: unknown = error.cause;
  if (error.code === "rate_limited") {
    if (cause instanceof MetaApiError && cause.code === 131056) return policy?.pairSpacingMs ?? 6_000;
    // The number backs off by itself (130429): the recipient can try again once its pause is over.
    if (cause instanceof MetaApiError) return policy?.throttlePauseMs ?? 1_000;
    return Math.max(1, error.retryAfterSeconds ?? 1) * 1000;
  }
  return Math.min(60_000, 1_000 * 2 ** Math.min(attempts - 1, 6));
}

type SendResult = "sent" | "final" | "requeued" | "kept";

/** Most recipients one `campaign-mark-sent` statement records, and how long a recorded send waits for others. */
const MARK_SENT_BATCH = 100;
const MARK_SENT_DELAY_MS = 20;

/**
 * A tick's accepted sends, recorded `sent` a few at a time (one statement per batch instead of one per send). A send
 * accepted but not yet recorded when the worker dies is a row left `sending`: its re-drive replays the
 * Idempotency-Key's completed answer, as for a worker killed before any statement.
 */
class SentMarks {
  private ids: string[] = [];
  private wamids: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  /** The first statement that failed: the tick throws it (its rows stay `sending` and are re-driven). */
  failure: Error | null = null;

  constructor(private readonly db: Db) {}

  add(recipientId: string, wamid: string): void {
    this.ids.push(recipientId);
    this.wamids.push(wamid);
    if (this.ids.length >= MARK_SENT_BATCH) this.write();
    else this.timer ??= setTimeout(() => this.write(), MARK_SENT_DELAY_MS);
  }

  /** Records what is pending and waits for every statement. */
  async flush(): Promise<void> {
    this.write();
    await this.writing;
  }

  private write(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.ids.length === 0) return;
    const values = [this.ids, this.wamids];
    this.ids = [];
    this.wamids = [];
    this.writing = this.writing.then(() =>
      this.db.sql.query({ name: "campaign-mark-sent", text: MARK_SENT, values }).then(
        () => undefined,
        (error: unknown) => {
          this.failure ??= error instanceof Error ? error : new Error(String(error));
        },
      ),
    );
  }
}

async function sendToRecipient(
  deps: CampaignRunnerDeps,
  campaign: CampaignRunRow,
  recipient: ClaimedRecipient,
  marks: SentMarks,
): Promise<SendResult> {
  const sql = deps.db.sql;
  // Anything but an outcome (the database or Redis failing) is thrown: the row stays `sending` and is driven again
  // later with the same key, which settles whatever this try did.
  const outcome = await sendMessage(deps.send, {
    accountId: campaign.account_id,
    actor: { id: `campaign:${campaign.id}`, origin: "system" },
    requestId: `campaign:${campaign.id}:${recipient.id}`,
    to: recipient.contact,
    phoneNumberId: campaign.phone_number_id,
    content: {
      kind: "template",
      name: campaign.template_name,
      language: campaign.template_language,
      parameters: recipient.parameters ?? {},
    },
    clientRef: recipient.client_ref,
    // The gateway's own key, one recipient's one message: nothing to compare (ReserveInput.fingerprint). Kept while
    // the recipient is `sending`, however long the campaign stays paused, so a redrive always finds it.
    idempotency: { key: recipientIdempotencyKey(recipient.id), fingerprint: null, retention: "until-settled" },
    campaignId: campaign.id,
    pacing: "wait",
    // Echoed by Meta in the message's statuses: a send this worker dies before recording is still recorded.
    callbackData: recipientCallbackData(recipient.id),
  });
  switch (outcome.kind) {
    case "sent":
      marks.add(recipient.id, outcome.message.messageId);
      return "sent";
    case "unconfirmed": {
      // The message may have gone out and is never resent.
      const error = new ApiError("send_unconfirmed");
      await sql.query({
        name: "campaign-mark-final",
        text: MARK_FINAL,
        values: [recipient.id, "failed", error.code, error.message, outcome.messageId],
      });
      return "final";
    }
    case "refused":
      return settleRefusal(deps, recipient, outcome.error);
  }
}

/** A confirmed refusal: nothing went out. Tried again later when the reason passes, else the recipient's outcome. */
async function settleRefusal(
  deps: CampaignRunnerDeps,
  recipient: ClaimedRecipient,
  error: ApiError,
): Promise<SendResult> {
  const sql = deps.db.sql;
  if (error.code === "idempotency_in_flight") {
    await sql.query({ name: "campaign-keep-sending", text: KEEP_SENDING, values: [recipient.id] });
    return "kept";
  }
  if (RETRY_LATER.has(error.code) && recipient.attempts < deps.settings.maxAttempts) {
    await sql.query({
      name: "campaign-requeue",
      text: REQUEUE,
      values: [recipient.id, retryDelayMs(deps, error, recipient.attempts), error.code, error.message],
    });
    return "requeued";
  }
  await sql.query({
    name: "campaign-mark-final",
    text: MARK_FINAL,
    values: [recipient.id, SKIPPED_CODES.has(error.code) ? "skipped" : "failed", error.code, error.message, null],
  });
  return "final";
}

interface Remaining {
  queued: number;
  sending: number;
  next_queued: Date | null;
  oldest_sending: Date | null;
  /** The earliest moment another process's lease over one of the `sending` rows runs out (now, if it has). */
  owner_lapses: Date | null;
}

/** What is left of a running campaign, to decide whether it is done and when to look again. */
async function remaining(deps: Pick<CampaignRunnerDeps, "db" | "owner">, campaignId: string): Promise<Remaining> {
  const { rows } = await deps.db.sql.query<Remaining>({
    name: "campaign-remaining",
    text: `SELECT count(*) FILTER (WHERE r.status = 'queued')::int AS queued,
        count(*) FILTER (WHERE r.status = 'sending')::int AS sending,
        min(COALESCE(r.not_before, now())) FILTER (WHERE r.status = 'queued') AS next_queued,
        min(r.reserved_at) FILTER (WHERE r.status = 'sending') AS oldest_sending,
        min(COALESCE(l.expires_at, now())) FILTER (WHERE r.status = 'sending' AND r.claim_owner IS NOT NULL
          AND r.claim_owner IS DISTINCT FROM $2::uuid) AS owner_lapses
      FROM campaign_recipients r LEFT JOIN process_leases l ON l.owner = r.claim_owner AND r.status = 'sending'
      WHERE r.campaign_id = $1::uuid AND r.status IN ('queued', 'sending')`,
    values: [campaignId, deps.owner ?? null],
  });
  return rows[0] ?? { queued: 0, sending: 0, next_queued: null, oldest_sending: null, owner_lapses: null };
}

/**
 * When a `sending` row may next be abandoned: its owner's lease running out (a live owner renews it: the tick looks
 * again, finds it renewed and waits again), or `redriveAfterMs` after the oldest claim.
 */
function nextAbandonment(deps: CampaignRunnerDeps, left: Remaining): number[] {
  return [
    left.oldest_sending ? left.oldest_sending.getTime() + deps.settings.redriveAfterMs : undefined,
    left.owner_lapses?.getTime(),
  ].filter((t): t is number => t !== undefined);
}

/**
 * Rows a dead worker left `sending` in a cancelled campaign are not sent again: their Idempotency-Key says what
 * happened. A completed 200 is `sent`; an answer of send_unconfirmed, or a key that reached the provider, is failed
 * `send_unconfirmed`; a key that never reached the provider (or none) means nothing went out: `cancelled`.
 */
async function settleAbandonedOfCancelled(deps: CampaignRunnerDeps, campaignId: string): Promise<number> {
  const unconfirmed = ERROR_REGISTRY.send_unconfirmed.message;
  const { rowCount } = await deps.db.sql.query({
    name: "campaign-settle-abandoned",
    text: `WITH stale AS (
        SELECT r.id, k.state, k.outcome, k.wamid, k.provider_called_at
        FROM campaign_recipients r
        JOIN campaigns c ON c.id = r.campaign_id
        LEFT JOIN idempotency_keys k ON k.account_id = c.account_id AND k.key = 'campaign:' || r.id
        WHERE r.campaign_id = $1::uuid AND r.status = 'sending' AND ${abandoned("r", "$4", "$2")}
        FOR UPDATE OF r SKIP LOCKED
      ), settled AS (
        SELECT id, wamid, CASE
            WHEN state = 'completed' AND outcome ->> 'kind' = 'sent' THEN 'sent'
            WHEN state = 'completed' OR provider_called_at IS NOT NULL THEN 'failed'
            ELSE 'cancelled' END AS status
        FROM stale
      )
      UPDATE campaign_recipients r SET status = s.status, wamid = COALESCE(s.wamid, r.wamid),
        message_id = (SELECT id FROM messages WHERE wamid = s.wamid),
        error_code = CASE WHEN s.status = 'failed' THEN 'send_unconfirmed' ELSE r.error_code END,
        error_message = CASE WHEN s.status = 'failed' THEN $3 ELSE r.error_message END,
        updated_at = now()
      FROM settled s WHERE r.id = s.id`,
    values: [campaignId, deps.settings.redriveAfterMs, unconfirmed, deps.owner ?? null],
  });
  return rowCount ?? 0;
}

/** One tick of a campaign: see the module comment. Throws when PostgreSQL fails (the job is retried). */
export async function runCampaignTick(
  deps: CampaignRunnerDeps,
  input: {
    campaignId: string;
    /** The process is stopping: claim nothing more, finish the sends in flight and hand the campaign back. */
    signal?: AbortSignal | undefined;
    /** Called once the campaign is found running, before its sends (the worker wakes the campaign's other shares). */
    onRunning?: (() => void) | undefined;
  },
): Promise<TickOutcome> {
  const { db, settings, logger } = deps;
  let campaign = await loadRunRow(db, input.campaignId);
  if (!campaign) return { kind: "done", status: "missing", sent: 0 };

  if (campaign.status === "scheduled") {
    if (campaign.start_at && campaign.start_at.getTime() > Date.now())
      return { kind: "again", at: campaign.start_at, sent: 0 };
    await db.sql.query({
      name: "campaign-scheduled-to-running",
      text: `UPDATE campaigns SET status = 'running', started_at = COALESCE(started_at, now()), updated_at = now()
        WHERE id = $1::uuid AND status = 'scheduled' AND (start_at IS NULL OR start_at <= now())`,
      values: [campaign.id],
    });
    campaign = (await loadRunRow(db, input.campaignId)) ?? campaign;
  }
  if (campaign.status === "cancelled") return finishCancelled(deps, campaign, 0);
  if (campaign.status !== "running") return { kind: "done", status: campaign.status, sent: 0 };

  const running = campaign;
  input.onRunning?.();
  const number = await deps.send.directory.resolveNumber(running.account_id, running.phone_number_id);
  const factor = deps.send.throughput
    ? await deps.send.throughput.state(running.phone_number_id).then(
        (state) => state.factor,
        () => 1,
      )
    : 1;
  // Enough sends in flight to fill the number's turn queue (CAMPAIGN_TURN_QUEUE_MS) and cover a provider call;
  // more would only hold reserved recipients asking for turns the queue has no room for.
  const rate = Math.max(1, (number?.messagingRatePerSecond ?? 1) * factor);
  const queueMs = deps.send.throughput?.policy.campaignMaxQueueMs ?? 250;
  const lanes = Math.min(settings.concurrency, Math.max(2, Math.ceil((rate * (queueMs + 100)) / 1000)));
  const deadline = Date.now() + settings.tickBudgetMs;

  let stopped: CampaignStatus | null = null;
  let failure: unknown = null;
  const poll = setInterval(() => {
    loadRunRow(db, running.id).then(
      (row) => {
        if (row && row.status !== "running") stopped = row.status;
      },
      () => undefined,
    );
  }, settings.statusPollMs);

  const buffer: ClaimedRecipient[] = [];
  let claiming: Promise<void> | null = null;
  let exhausted = false;
  const owner = deps.owner ?? null;
  const claim = async (sqlText: string, name: string, values: unknown[]) =>
    (await db.sql.query<ClaimedRecipient>({ name, text: sqlText, values })).rows;
  let abandonedCheckedAt = Number.NEGATIVE_INFINITY;
  const claimAbandoned = async () => {
    abandonedCheckedAt = Date.now();
    const rows = await claim(CLAIM_ABANDONED, "campaign-claim-abandoned", [
      running.id,
      lanes * ABANDONED_CLAIM_LANES,
      settings.redriveAfterMs,
      owner,
    ]);
    if (rows.length > 0)
      logger.warn("re-driving recipients a stopped worker left in flight", {
        campaignId: running.id,
        count: rows.length,
      });
    return rows;
  };
  const refill = async () => {
    let rows: ClaimedRecipient[] = [];
    // Left by a dead worker: first, and again every half second (its lease may run out while this tick sends), then
    // whenever nothing else is queued.
    if (Date.now() - abandonedCheckedAt >= ABANDONED_RECHECK_MS) rows = await claimAbandoned();
    if (rows.length === 0) rows = await claim(CLAIM_QUEUED, "campaign-claim-queued", [running.id, lanes, owner]);
    if (rows.length === 0) rows = await claimAbandoned();
    if (rows.length === 0) exhausted = true;
    buffer.push(...rows);
  };
  const currentClaim = (): Promise<void> | null => claiming;
  let adoptionFailure: Error | null = null;
  const currentAdoptionFailure = (): Error | null => adoptionFailure;
  // Abandoned rows go first: they were claimed before anything still queued.
  const adoptAbandoned = setInterval(() => {
    if (claiming !== null || exhausted || failure !== null) return;
    if (Date.now() - abandonedCheckedAt < ABANDONED_RECHECK_MS) return;
    claiming = claimAbandoned()
      .then((rows) => void buffer.unshift(...rows))
      .catch((error: unknown) => {
        adoptionFailure = error instanceof Error ? error : new Error(String(error));
        failure ??= adoptionFailure;
      })
      .finally(() => (claiming = null));
  }, ABANDONED_RECHECK_MS / 2);
  const next = async (): Promise<ClaimedRecipient | null> => {
    for (;;) {
      if (stopped !== null || failure !== null || input.signal?.aborted || Date.now() >= deadline) return null;
      const row = buffer.shift();
      if (row) return row;
      if (exhausted) return null;
      await (claiming ??= refill().finally(() => (claiming = null)));
    }
  };

  let sent = 0;
  const marks = new SentMarks(db);
  const lane = async () => {
    for (;;) {
      const recipient = await next();
      if (!recipient) return;
      if ((await sendToRecipient(deps, running, recipient, marks)) === "sent") sent++;
      if (marks.failure !== null) throw marks.failure;
    }
  };
  const results = await Promise.allSettled(
    Array.from({ length: lanes }, () =>
      lane().catch((error: unknown) => {
        failure = error;
        throw error;
      }),
    ),
  );
  clearInterval(poll);
  clearInterval(adoptAbandoned);
  // A claim of the timer still running: its rows are in the buffer (released below) once it settles. (Read through
  // a function: the compiler cannot see the timer's assignments.)
  await currentClaim();
  await marks.flush();
  if (buffer.length > 0) {
    const ids = buffer.splice(0).map((r) => r.id);
    await db.sql.query({ name: "campaign-release", text: RELEASE, values: [ids] });
  }
  if (marks.failure !== null) throw marks.failure;
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (rejected) throw rejected.reason;
  // The timer's claim failed (the lanes stopped for it without an error of their own).
  const timerFailure = currentAdoptionFailure();
  if (timerFailure !== null) throw timerFailure;

  const now = await loadRunRow(db, running.id);
  if (!now) return { kind: "done", status: "missing", sent };
  if (now.status === "cancelled") return finishCancelled(deps, now, sent);
  if (now.status !== "running") return { kind: "done", status: now.status, sent };
  if (Date.now() >= deadline || input.signal?.aborted) return { kind: "again", at: new Date(), sent };

  const left = await remaining(deps, running.id);
  if (left.queued === 0 && left.sending === 0) {
    const { rowCount } = await db.sql.query({
      name: "campaign-complete",
      text: `UPDATE campaigns SET status = 'completed', completed_at = now(), updated_at = now()
        WHERE id = $1::uuid AND status = 'running'
          AND NOT EXISTS (SELECT 1 FROM campaign_recipients WHERE campaign_id = $1::uuid AND status IN ('queued', 'sending'))`,
      values: [running.id],
    });
    if (rowCount === 1) {
      logger.info("campaign completed", { campaignId: running.id });
      return { kind: "done", status: "completed", sent };
    }
    return { kind: "again", at: new Date(), sent };
  }
  // Nothing claimable now: recipients waiting for their not_before, or in flight elsewhere (or abandoned).
  const candidates = [left.next_queued?.getTime(), ...nextAbandonment(deps, left)].filter(
    (t): t is number => t !== undefined,
  );
  const at = Math.max(Date.now() + 100, Math.min(...candidates));
  return { kind: "again", at: new Date(at), sent };
}

async function finishCancelled(deps: CampaignRunnerDeps, campaign: CampaignRunRow, sent: number): Promise<TickOutcome> {
  // Recipients put back in the queue after the cancel (a paced send refused, a tick releasing its buffer).
  await deps.db.sql.query({
    name: "campaign-cancel-leftovers",
    text: `UPDATE campaign_recipients SET status = 'cancelled', updated_at = now() WHERE campaign_id = $1::uuid AND status = 'queued'`,
    values: [campaign.id],
  });
  await settleAbandonedOfCancelled(deps, campaign.id);
  const left = await remaining(deps, campaign.id);
  if (left.sending === 0 || !left.oldest_sending) return { kind: "done", status: "cancelled", sent };
  return { kind: "again", at: new Date(Math.max(Date.now() + 100, Math.min(...nextAbandonment(deps, left)))), sent };
}

/**
 * Every campaign that should have a tick job: running ones, scheduled ones (due at their start), and cancelled ones
 * with recipients still `sending` (to settle). The worker's sweep wakes them all; one that has its job keeps it.
 */
export async function campaignsToWake(deps: { db: Db }): Promise<CampaignWake[]> {
  const { rows } = await deps.db.sql.query<{ id: string; status: CampaignStatus; start_at: Date | null }>({
    name: "campaigns-to-wake",
    text: `SELECT c.id, c.status, c.start_at FROM campaigns c
      WHERE c.status IN ('running', 'scheduled')
        OR (c.status = 'cancelled' AND EXISTS (
          SELECT 1 FROM campaign_recipients r WHERE r.campaign_id = c.id AND r.status = 'sending'))`,
  });
  return rows.map((row) => ({
    campaignId: row.id,
    at: row.status === "scheduled" && row.start_at ? row.start_at : undefined,
  }));
}
