import { DELIVERY_RANGE_MAX_DAYS, REPLAYABLE_STATUSES } from "@gw/contracts";
import { inTransaction, type Db, type SqlClient } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { WebhookQueue } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import { recordAudit, recordAuditAs, type Actor, type AuditOrigin } from "../../audit/audit.ts";
import { ensureAttemptsQueued } from "../attempt/queueing.ts";
import { retryAction } from "./retry.ts";

/**
 * Replay by time range (issue 21; docs/decisions.md, "Replay and export of deliveries"): every delivery of the account
 * created in [since, until) that matches the filters and is `failed` or `delivered` goes back to the queue, as a
 * manual retry puts one (same row, same `delivery_id` and signed bytes, new attempts with a fresh budget), so each
 * attempt goes through the dispatcher's one path: signed when it is made, behind the fairness gate and the SSRF guard.
 * The request only records the replay (audited, rate-limited per account); the `deliveries.replay` job does the work
 * in short batches, each one transaction with its audit entry and the replay's new place.
 */

/** The delivery statuses a replay sends again: those no attempt is waiting for. */
export const REPLAY_STATUSES = REPLAYABLE_STATUSES;
export type ReplayStatus = (typeof REPLAY_STATUSES)[number];
/** The longest range one replay (or one export) may cover. */
export const REPLAY_MAX_DAYS = DELIVERY_RANGE_MAX_DAYS;
/** Deliveries re-queued per batch (one transaction each). */
export const REPLAY_BATCH_SIZE = 500;

const DAY_MS = 86_400_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type ReplayState = "pending" | "running" | "completed";

export interface DeliveryReplayView {
  id: string;
  status: ReplayState;
  since: string;
  until: string;
  event: string | null;
  statuses: ReplayStatus[];
  integration_id: string | null;
  /** Deliveries that matched when the job started; null before. */
  matched: number | null;
  /** Deliveries put back in the queue so far. */
  queued: number;
  created_at: string;
  started_at: string | null;
  updated_at: string;
  completed_at: string | null;
  /** Who asked (`api_key:<id>`, `panel:<email>`...). */
  requested_by: string;
}

/** A per-account budget of replays (built in @gw/wiring over Redis, shared by the API and the panel). */
export interface ReplayLimiter {
  take(
    accountId: string,
  ): Promise<{ granted: true; refund(): Promise<void> } | { granted: false; retryAfterMs: number }>;
}

export interface CreateReplayDeps {
  db: Db;
  limiter?: ReplayLimiter | undefined;
  /** Gives the new replay its job at once (the dispatcher's sweep does it anyway). */
  wake?: ((replayIds: readonly string[]) => Promise<void>) | undefined;
  logger?: Logger | undefined;
}

export interface CreateReplayInput {
  accountId: string;
  actor: Actor;
  since: Date;
  until: Date;
  event?: string | undefined;
  /** Both when absent. */
  statuses?: readonly ReplayStatus[] | undefined;
  integrationId?: string | undefined;
  now?: Date;
}

/** A replay refused for one of its fields (each edge renders it: 422 at `body.<field>`, or the panel's notice). */
export interface ReplayRefusal {
  kind: "refused";
  field: "since" | "until" | "integration_id";
  message: string;
}

export type CreateReplayOutcome = { kind: "created"; replay: DeliveryReplayView } | ReplayRefusal;

/** The sentence of a 429 for an account past its replays (the per-key limit's code, a sentence of its own). */
export function replayLimitedMessage(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Limite de reenvios por período desta conta atingido; aguarde ${minutes === 1 ? "1 minuto" : `${minutes} minutos`} (Retry-After) antes de pedir outro.`;
}

/**
 * A range `until` clamped to now (what is created later is never replayed: it is still on its first attempts), and
 * checked: `since` before `until`, at most REPLAY_MAX_DAYS apart. Null when valid.
 */
export function checkDeliveryRange(since: Date, until: Date): ReplayRefusal | null {
  if (since.getTime() >= until.getTime())
    return { kind: "refused", field: "since", message: "O início do período deve ser anterior ao fim." };
  if (until.getTime() - since.getTime() > REPLAY_MAX_DAYS * DAY_MS)
    return {
      kind: "refused",
      field: "until",
      message: `O período pode ter no máximo ${REPLAY_MAX_DAYS} dias.`,
    };
  return null;
}

/**
 * Records a replay (pending) and its audit entry (`<origin>.delivery_replay.created`) in one transaction, after the
 * account's replay budget granted it; then wakes its job. Returns the replay's view, or a refusal of one field.
 */
export async function createDeliveryReplay(
  deps: CreateReplayDeps,
  input: CreateReplayInput,
): Promise<CreateReplayOutcome> {
  const { db } = deps;
  const now = input.now ?? new Date();
  const until = input.until.getTime() > now.getTime() ? now : input.until;
  const refusal = checkDeliveryRange(input.since, until);
  if (refusal) return refusal;
  if (input.integrationId !== undefined) {
    const known =
      UUID.test(input.integrationId) &&
      (await db.integration.count({ where: { id: input.integrationId, accountId: input.accountId } })) > 0;
    if (!known)
      return { kind: "refused", field: "integration_id", message: "A integração não foi encontrada nesta conta." };
  }
  const statuses = [...new Set(input.statuses?.length ? input.statuses : REPLAY_STATUSES)];

  const grant = deps.limiter ? await deps.limiter.take(input.accountId) : null;
  if (grant && !grant.granted) {
    const retryAfterSeconds = Math.max(1, Math.ceil(grant.retryAfterMs / 1000));
    throw new ApiError("api_rate_limited", { message: replayLimitedMessage(retryAfterSeconds), retryAfterSeconds });
  }
  let row: ReplayRow;
  try {
    row = await inTransaction(db.sql, async (client) => {
      const { rows } = await client.query<ReplayRow>({
        name: "delivery-replay-insert",
        text: `INSERT INTO delivery_replays (account_id, since, until, event, statuses, integration_id, actor, actor_origin,
            request_id, created_at, updated_at)
          VALUES ($1::uuid, $2, $3, $4, $5::text[], $6::uuid, $7, $8, $9, $10, $10) RETURNING ${REPLAY_COLUMNS}`,
        values: [
          input.accountId,
          input.since,
          until,
          input.event ?? null,
          statuses,
          input.integrationId ?? null,
          input.actor.id,
          input.actor.origin,
          input.actor.requestId ?? null,
          now,
        ],
      });
      const inserted = rows[0];
      if (!inserted) throw new Error("replay insert returned no row");
      await recordAuditAs(client, input, "delivery_replay.created", {
        target: `replay:${inserted.id}`,
        details: {
          since: input.since.toISOString(),
          until: until.toISOString(),
          event: input.event ?? null,
          statuses,
          integration_id: input.integrationId ?? null,
        },
      });
      return inserted;
    });
  } catch (error) {
    if (grant?.granted) await grant.refund().catch(() => undefined);
    throw error;
  }
  try {
    await deps.wake?.([row.id]);
  } catch (error) {
    deps.logger?.warn("replay recorded but its job could not be queued now; the dispatcher's sweep will", {
      replayId: row.id,
      error: (error as Error).message,
    });
  }
  return { kind: "created", replay: viewOf(row) };
}

interface ReplayRow {
  id: string;
  account_id: string;
  status: ReplayState;
  since: Date;
  until: Date;
  event: string | null;
  statuses: ReplayStatus[] | null;
  integration_id: string | null;
  matched: number | null;
  queued: number;
  batches: number;
  cursor_created_at: Date | null;
  cursor_id: string;
  actor: string;
  actor_origin: AuditOrigin;
  request_id: string | null;
  created_at: Date;
  started_at: Date | null;
  updated_at: Date;
  completed_at: Date | null;
}

const REPLAY_COLUMNS = `id, account_id, status, since, until, event, statuses, integration_id, matched, queued, batches,
  cursor_created_at, cursor_id::text AS cursor_id, actor, actor_origin, request_id, created_at, started_at, updated_at,
  completed_at`;

function viewOf(row: ReplayRow): DeliveryReplayView {
  return {
    id: row.id,
    status: row.status,
    since: row.since.toISOString(),
    until: row.until.toISOString(),
    event: row.event,
    statuses: row.statuses ?? [...REPLAY_STATUSES],
    integration_id: row.integration_id,
    matched: row.matched,
    queued: row.queued,
    created_at: row.created_at.toISOString(),
    started_at: row.started_at?.toISOString() ?? null,
    updated_at: row.updated_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
    requested_by: row.actor,
  };
}

function replayNotFound(): ApiError {
  return new ApiError("not_found", { message: "O reenvio por período não foi encontrado nesta conta." });
}

/** GET /deliveries/replays/{id}: one of the account's replays; anything else (another account's, not a uuid) is 404. */
export async function getDeliveryReplay(
  deps: { db: Db },
  input: { accountId: string; replayId: string },
): Promise<DeliveryReplayView> {
  if (!UUID.test(input.replayId)) throw replayNotFound();
  const { rows } = await deps.db.sql.query<ReplayRow>({
    name: "delivery-replay-get",
    text: `SELECT ${REPLAY_COLUMNS} FROM delivery_replays WHERE id = $1::uuid AND account_id = $2::uuid`,
    values: [input.replayId, input.accountId],
  });
  const row = rows[0];
  if (!row) throw replayNotFound();
  return viewOf(row);
}

/** The account's most recent replays (the panel's Entregas page). */
export async function listDeliveryReplays(
  deps: { db: Db },
  input: { accountId: string; limit?: number },
): Promise<DeliveryReplayView[]> {
  const { rows } = await deps.db.sql.query<ReplayRow>({
    name: "delivery-replay-list",
    text: `SELECT ${REPLAY_COLUMNS} FROM delivery_replays WHERE account_id = $1::uuid
      ORDER BY created_at DESC, id DESC LIMIT $2`,
    values: [input.accountId, Math.min(Math.max(input.limit ?? 5, 1), 100)],
  });
  return rows.map(viewOf);
}

/** Replays not completed (the dispatcher's sweep gives each a job; one that has one keeps it). */
export async function unfinishedReplays(deps: { db: Db }, input: { limit?: number } = {}): Promise<string[]> {
  const { rows } = await deps.db.sql.query<{ id: string }>({
    name: "delivery-replay-unfinished",
    text: `SELECT id FROM delivery_replays WHERE status IN ('pending', 'running') ORDER BY created_at LIMIT $1`,
    values: [input.limit ?? 1_000],
  });
  return rows.map((row) => row.id);
}

/** Cut-offs of the retention: a delivery whose status is older than its retention is not replayed (0: kept for ever). */
export interface ReplayRetention {
  deliveredDays: number;
  failedDays: number;
}

export interface AdvanceReplayDeps {
  db: Db;
  queue: WebhookQueue;
  logger?: Logger | undefined;
}

export interface AdvanceReplayInput {
  replayId: string;
  batchSize?: number | undefined;
  retention?: ReplayRetention | undefined;
  /** Jobs waiting in the webhook queue above which no batch is re-queued now (DISPATCHER_MAX_QUEUED_JOBS). */
  maxQueued?: number | undefined;
  now?: Date;
}

export type AdvanceReplayOutcome =
  /** One batch done and more may match: run again. */
  | { kind: "again"; queued: number }
  /** The webhook queue is full: nothing done, run again then. */
  | { kind: "wait"; at: Date }
  | { kind: "completed"; queued: number }
  /** No such replay, or already completed. */
  | { kind: "gone" };

/**
 * The matching deliveries of a replay, as one WHERE clause on `deliveries d` (parameters $1..$10): the account and
 * range through the (account_id, created_at, id) index, after the cursor, with the filters, still retained.
 */
const MATCH_SQL = `d.account_id = $1::uuid AND d.created_at >= $2 AND d.created_at < $3
  AND d.status = ANY($4::text[]) AND ($5::text IS NULL OR d.event = $5) AND ($6::uuid IS NULL OR d.integration_id = $6)
  AND ($7::timestamptz IS NULL OR d.status <> 'delivered' OR d.updated_at >= $7)
  AND ($8::timestamptz IS NULL OR d.status <> 'failed' OR d.updated_at >= $8)
  AND (d.created_at, d.id) > ($9::timestamptz, $10::bigint)`;

const EPOCH = new Date(0);

function cutOff(now: Date, days: number | undefined): Date | null {
  return days && days > 0 ? new Date(now.getTime() - days * DAY_MS) : null;
}

/**
 * One step of a replay (the `deliveries.replay` job): on its first run the matching deliveries are counted; then the
 * next batch after the replay's cursor (in creation order) is locked and put back in the queue as a manual retry
 * does (`pending`, fresh budget and deadline), the replay's cursor and counts move past it, and the batch is audited
 * under the resend's action (`api.webhook.retry` or `webhook.retry`, target `replay:<id>`) in the name of whoever
 * asked, all in one transaction. The batch's jobs are queued after the commit; should that fail, the rows are pending
 * and due, and the dispatcher's sweep queues them. A crash anywhere leaves either the batch done or not at all.
 */
export async function advanceDeliveryReplay(
  deps: AdvanceReplayDeps,
  input: AdvanceReplayInput,
): Promise<AdvanceReplayOutcome> {
  const now = input.now ?? new Date();
  const batchSize = Math.max(1, Math.floor(input.batchSize ?? REPLAY_BATCH_SIZE));
  if (!UUID.test(input.replayId)) return { kind: "gone" };
  if (input.maxQueued !== undefined) {
    const counts = await deps.queue.getJobCounts("waiting", "delayed", "prioritized");
    const waiting = Object.values(counts).reduce((sum, n) => sum + n, 0);
    if (waiting + batchSize > input.maxQueued) return { kind: "wait", at: new Date(now.getTime() + 5_000) };
  }
  const delivered = cutOff(now, input.retention?.deliveredDays);
  const failed = cutOff(now, input.retention?.failedDays);

  const step = await inTransaction(deps.db.sql, async (client) => {
    const { rows } = await client.query<ReplayRow>({
      name: "delivery-replay-lock",
      text: `SELECT ${REPLAY_COLUMNS} FROM delivery_replays WHERE id = $1::uuid AND status <> 'completed' FOR UPDATE`,
      values: [input.replayId],
    });
    const replay = rows[0];
    if (!replay) return null;
    const match = (cursorAt: Date, cursorId: string) => [
      replay.account_id,
      replay.since,
      replay.until,
      replay.statuses ?? [...REPLAY_STATUSES],
      replay.event,
      replay.integration_id,
      delivered,
      failed,
      cursorAt,
      cursorId,
    ];
    if (replay.status === "pending") {
      const counted = await client.query<{ matched: number }>({
        name: "delivery-replay-count",
        text: `SELECT count(*)::int AS matched FROM deliveries d WHERE ${MATCH_SQL}`,
        values: match(EPOCH, "0"),
      });
      replay.matched = counted.rows[0]?.matched ?? 0;
      replay.started_at = now;
    }
    const batch = await client.query<{ id: string; created_at: Date }>({
      name: "delivery-replay-batch",
      text: `SELECT d.id::text AS id, d.created_at FROM deliveries d WHERE ${MATCH_SQL}
        ORDER BY d.created_at, d.id LIMIT $11 FOR UPDATE`,
      values: [...match(replay.cursor_created_at ?? EPOCH, replay.cursor_id), batchSize],
    });
    const ids = batch.rows.map((row) => row.id);
    const requeued = await requeue(client, ids, now);
    const last = batch.rows.at(-1);
    const done = batch.rows.length < batchSize;
    const batchNumber = replay.batches + (requeued.length > 0 ? 1 : 0);
    await client.query({
      name: "delivery-replay-progress",
      text: `UPDATE delivery_replays SET status = $2, matched = $3, started_at = $4, queued = queued + $5, batches = $6,
          cursor_created_at = COALESCE($7, cursor_created_at), cursor_id = COALESCE($8::bigint, cursor_id),
          updated_at = $9, completed_at = $10
        WHERE id = $1::uuid`,
      values: [
        replay.id,
        done ? "completed" : "running",
        replay.matched,
        replay.started_at,
        requeued.length,
        batchNumber,
        last?.created_at ?? null,
        last?.id ?? null,
        now,
        done ? now : null,
      ],
    });
    if (requeued.length > 0) {
      const actor: Actor = { id: replay.actor, origin: replay.actor_origin, requestId: replay.request_id };
      await recordAudit(client, {
        accountId: replay.account_id,
        actor,
        action: retryAction(actor),
        target: `replay:${replay.id}`,
        details: { count: requeued.length, batch: batchNumber },
      });
    }
    return { done, requeued };
  });
  if (step === null) return { kind: "gone" };

  try {
    await ensureAttemptsQueued(
      deps.queue,
      step.requeued.map((row) => ({
        deliveryId: row.id,
        attempt: row.attempt_count + 1,
        integrationId: row.integration_id,
      })),
    );
  } catch (error) {
    // Committed as pending and due: the dispatcher's sweep queues them once Redis answers.
    deps.logger?.warn("replay batch recorded but its jobs could not be queued now; the sweep will queue them", {
      replayId: input.replayId,
      count: step.requeued.length,
      error: (error as Error).message,
    });
  }
  const queued = step.requeued.length;
  return step.done ? { kind: "completed", queued } : { kind: "again", queued };
}

/** Back to the queue as a manual retry puts a delivery (retry.ts): pending, a fresh budget and deadline, due now. */
async function requeue(
  client: SqlClient,
  ids: readonly string[],
  now: Date,
): Promise<{ id: string; attempt_count: number; integration_id: string }[]> {
  if (ids.length === 0) return [];
  const { rows } = await client.query<{ id: string; attempt_count: number; integration_id: string }>({
    name: "delivery-replay-requeue",
    text: `UPDATE deliveries SET status = 'pending', budget_start = attempt_count, budget_started_at = $2,
        next_attempt_at = $2, delivered_at = NULL, updated_at = $2
      WHERE id = ANY($1::bigint[])
      RETURNING id::text AS id, attempt_count, integration_id::text AS integration_id`,
    values: [ids, now],
  });
  return rows;
}
