import { inTransaction, type Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import { deliverWebhookJob, type AttemptToQueue, type WebhookQueue } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import { recordAuditAs, auditAction, recordAudit, type Actor } from "../../audit/audit.ts";
import { ensureAttemptsQueued } from "../attempt/queueing.ts";
import { PARKED_BUDGET_START } from "../attempt/schedule.ts";
import { DELIVERY_ERROR_KIND_MESSAGES, type DeliveryErrorKind } from "../attempt/error-kinds.ts";

/**
 * Endpoint health (docs/decisions.md, "Endpoint health"). Figures come from the attempts the dispatcher records
 * (`delivery_attempts`, read by `(integration_id, started_at)`): success rate, latency percentiles and the last error
 * over the last hour and the last day. An integration whose every attempt failed for the configured time
 * (WEBHOOK_DISABLE_AFTER_FAILING_MS) is disabled with a stated reason; its deliveries wait, `pending` without a next
 * attempt and with their budget not started (PARKED_BUDGET_START, so the schedule's deadline never fails them), until
 * it is re-enabled by hand; each then resumes with a fresh budget.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Characters of the endpoint's last answer shown with the last error. */
const LAST_ERROR_BODY_CHARS = 500;
/** Jobs queued by the re-enable itself; the sweep queues the rest (they are due at once). */
const ENABLE_QUEUE_LIMIT = 1_000;
/** Jobs removed from Redis per round trip when an integration is disabled. */
const REMOVE_BATCH = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Who disables a failing integration: the dispatcher, audited as `system.integration.disabled`. */
export const DISPATCHER_ACTOR: Actor = { id: "dispatcher", origin: "system", requestId: null };

export interface HealthWindow {
  since: string;
  attempts: number;
  succeeded: number;
  failed: number;
  /** succeeded / attempts, 4 decimals; null without attempts. */
  success_rate: number | null;
  /** Duration of the attempts (request to answer or error), ms; null without attempts. */
  latency_ms: { p50: number; p95: number; p99: number } | null;
  last_error: LastError | null;
}

export interface LastError {
  at: string;
  status_code: number | null;
  error_kind: string;
  /** Portuguese explanation of error_kind. */
  message: string;
  /** The start of what the endpoint answered (null once retention cleared it, or when it answered nothing). */
  body: string | null;
}

export interface EndpointHealth {
  integration_id: string;
  url: string;
  active: boolean;
  disabled_at: string | null;
  disabled_reason: string | null;
  /** Deliveries waiting for the re-enable (0 while enabled). */
  waiting_deliveries: number;
  last_hour: HealthWindow;
  last_day: HealthWindow;
}

interface FiguresRow {
  hour_attempts: number;
  hour_succeeded: number;
  hour_latency: number[] | null;
  day_attempts: number;
  day_succeeded: number;
  day_latency: number[] | null;
}

// One range of the (integration_id, started_at) index: the day's attempts, the hour's by FILTER.
const HEALTH_FIGURES = `
SELECT count(*) FILTER (WHERE started_at > $3)::int AS hour_attempts,
  count(*) FILTER (WHERE started_at > $3 AND error_kind IS NULL)::int AS hour_succeeded,
  percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY duration_ms) FILTER (WHERE started_at > $3)
    AS hour_latency,
  count(*)::int AS day_attempts,
  count(*) FILTER (WHERE error_kind IS NULL)::int AS day_succeeded,
  percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY duration_ms) AS day_latency
FROM delivery_attempts
WHERE integration_id = $1::uuid AND started_at > $2 AND started_at <= $4`;

interface LastErrorRow {
  started_at: Date;
  status_code: number | null;
  error_kind: string;
  response_body: string | null;
}

const LAST_ERROR = `
SELECT started_at, status_code, error_kind, left(response_body, ${LAST_ERROR_BODY_CHARS}) AS response_body
FROM delivery_attempts
WHERE integration_id = $1::uuid AND started_at > $2 AND started_at <= $3 AND error_kind IS NOT NULL
ORDER BY started_at DESC LIMIT 1`;

// Waiting deliveries: pending without a next attempt, through the (account_id, status, id) index.
const WAITING_COUNT = `
SELECT count(*)::int AS waiting FROM deliveries
WHERE account_id = $2::uuid AND status = 'pending' AND integration_id = $1::uuid AND next_attempt_at IS NULL`;

function errorMessage(kind: string): string {
  return DELIVERY_ERROR_KIND_MESSAGES[kind as DeliveryErrorKind] ?? "Falha ao entregar.";
}

function healthWindow(
  since: Date,
  attempts: number,
  succeeded: number,
  latency: number[] | null,
  lastError: LastErrorRow | undefined,
): HealthWindow {
  const [p50, p95, p99] = latency ?? [];
  return {
    since: since.toISOString(),
    attempts,
    succeeded,
    failed: attempts - succeeded,
    success_rate: attempts === 0 ? null : Math.round((succeeded / attempts) * 10_000) / 10_000,
    latency_ms:
      attempts === 0 || p50 === undefined || p95 === undefined || p99 === undefined
        ? null
        : { p50: Math.round(p50), p95: Math.round(p95), p99: Math.round(p99) },
    last_error:
      lastError && lastError.started_at > since
        ? {
            at: lastError.started_at.toISOString(),
            status_code: lastError.status_code,
            error_kind: lastError.error_kind,
            message: errorMessage(lastError.error_kind),
            body: lastError.response_body,
          }
        : null,
  };
}

/**
 * The integration's health over the last hour and the last day; null when it is not the account's (or the id is
 * not a UUID). Cost: one index range over the integration's attempts of the day, plus one backward scan to its
 * last error.
 */
export async function endpointHealth(
  deps: { db: Db },
  input: { accountId: string; integrationId: string; now?: Date },
): Promise<EndpointHealth | null> {
  if (!UUID.test(input.integrationId) || !UUID.test(input.accountId)) return null;
  const integration = await deps.db.integration.findFirst({
    where: { id: input.integrationId, accountId: input.accountId },
    select: { id: true, url: true, active: true, disabledAt: true, disabledReason: true },
  });
  if (!integration) return null;
  const now = input.now ?? new Date();
  const hourAgo = new Date(now.getTime() - HOUR_MS);
  const dayAgo = new Date(now.getTime() - DAY_MS);
  const [figures, lastError, waiting] = await Promise.all([
    deps.db.sql.query<FiguresRow>({
      name: "endpoint-health-figures",
      text: HEALTH_FIGURES,
      values: [integration.id, dayAgo, hourAgo, now],
    }),
    deps.db.sql.query<LastErrorRow>({
      name: "endpoint-health-last-error",
      text: LAST_ERROR,
      values: [integration.id, dayAgo, now],
    }),
    integration.disabledAt === null
      ? null
      : deps.db.sql.query<{ waiting: number }>({
          name: "endpoint-health-waiting",
          text: WAITING_COUNT,
          values: [integration.id, input.accountId],
        }),
  ]);
  const row = figures.rows[0];
  const last = lastError.rows[0];
  return {
    integration_id: integration.id,
    url: integration.url,
    active: integration.active,
    disabled_at: integration.disabledAt?.toISOString() ?? null,
    disabled_reason: integration.disabledReason,
    waiting_deliveries: waiting?.rows[0]?.waiting ?? 0,
    last_hour: healthWindow(
      hourAgo,
      row?.hour_attempts ?? 0,
      row?.hour_succeeded ?? 0,
      row?.hour_latency ?? null,
      last,
    ),
    last_day: healthWindow(dayAgo, row?.day_attempts ?? 0, row?.day_succeeded ?? 0, row?.day_latency ?? null, last),
  };
}

const UNITS: readonly (readonly [number, string, string])[] = [
  [DAY_MS, "dia", "dias"],
  [HOUR_MS, "hora", "horas"],
  [60_000, "minuto", "minutos"],
  [1_000, "segundo", "segundos"],
];

/** `5 dias`, `36 horas`, `1,5 segundo`: a duration in its largest whole unit, in Portuguese. */
export function describeDuration(ms: number): string {
  for (const [size, one, many] of UNITS) {
    if (ms >= size || size === 1_000) {
      const value = Math.round((ms / size) * 10) / 10;
      return `${String(value).replace(".", ",")} ${value < 2 ? one : many}`;
    }
  }
  return `${ms} ms`;
}

/** The reason stored (and shown) when an integration is disabled. */
export function disabledReason(thresholdMs: number, lastError: { statusCode: number | null; errorKind: string }) {
  const error =
    lastError.statusCode !== null
      ? `HTTP ${lastError.statusCode}`
      : errorMessage(lastError.errorKind).replace(/\.$/, "").toLowerCase();
  return `desativada: todas as tentativas falharam por ${describeDuration(thresholdMs)}; último erro: ${error}`;
}

interface FailingRow {
  failing: boolean;
}

// Every attempt failed for at least the threshold: the last attempt at or before `now - threshold` failed and none
// since succeeded. The first probe is one index lookup; the second (a scan of the window) runs only when it passes.
const FAILING_CHECK = `
SELECT CASE
  WHEN (SELECT a.error_kind IS NOT NULL FROM delivery_attempts a
        WHERE a.integration_id = i.id AND a.started_at <= $2 ORDER BY a.started_at DESC LIMIT 1)
  THEN NOT EXISTS (SELECT 1 FROM delivery_attempts a
        WHERE a.integration_id = i.id AND a.started_at > $2 AND a.error_kind IS NULL)
  ELSE false END AS failing
FROM integrations i
WHERE i.id = $1::uuid AND i.active AND i.disabled_at IS NULL`;

const DISABLE = `
UPDATE integrations SET disabled_at = $2, disabled_reason = $3, updated_at = $2
WHERE id = $1::uuid AND active AND disabled_at IS NULL
RETURNING account_id::text AS account_id, url`;

// Through the (account_id, status, id) index. Their jobs are removed after the commit.
const PARK_PENDING = `
UPDATE deliveries SET next_attempt_at = NULL, budget_started_at = '${PARKED_BUDGET_START}', updated_at = $3
WHERE account_id = $2::uuid AND status = 'pending' AND integration_id = $1::uuid
RETURNING id::text AS id, attempt_count`;

export interface DisabledIntegration {
  integrationId: string;
  accountId: string;
  reason: string;
  /** Pending deliveries that now wait for the re-enable. */
  waiting: number;
}

/**
 * After a failed attempt: disable the integration when every one of its attempts has failed for `thresholdMs`
 * (none succeeded since, and the last one at or before `now - thresholdMs` failed). The integration row, its pending
 * deliveries (parked: no next attempt, budget not started) and the audit entry commit together; their waiting jobs
 * are removed from Redis after the commit (one left behind finds its integration disabled and parks its row). Null
 * when it is not failing for that long, or is paused or already disabled. Safe with any number of pods at once: the
 * UPDATE's `disabled_at IS NULL` lets exactly one win.
 */
export async function disableIfFailing(
  deps: { db: Db; queue: WebhookQueue; logger: Logger },
  input: {
    integrationId: string;
    thresholdMs: number;
    /** The attempt that just failed: named in the reason. */
    lastError: { statusCode: number | null; errorKind: string };
    now?: Date;
  },
): Promise<DisabledIntegration | null> {
  if (input.thresholdMs <= 0) return null;
  const now = input.now ?? new Date();
  const cut = new Date(now.getTime() - input.thresholdMs);
  const check = await deps.db.sql.query<FailingRow>({
    name: "endpoint-failing-check",
    text: FAILING_CHECK,
    values: [input.integrationId, cut],
  });
  if (check.rows[0]?.failing !== true) return null;
  const reason = disabledReason(input.thresholdMs, input.lastError);
  const result = await inTransaction(deps.db.sql, async (client) => {
    const disabled = await client.query<{ account_id: string; url: string }>({
      name: "endpoint-disable",
      text: DISABLE,
      values: [input.integrationId, now, reason],
    });
    const row = disabled.rows[0];
    if (!row) return null;
    const parked = await client.query<{ id: string; attempt_count: number }>({
      name: "endpoint-park-pending",
      text: PARK_PENDING,
      values: [input.integrationId, row.account_id, now],
    });
    await recordAudit(client, {
      accountId: row.account_id,
      actor: DISPATCHER_ACTOR,
      action: auditAction(DISPATCHER_ACTOR, "integration.disabled"),
      target: `integration:${input.integrationId}`,
      details: { reason, threshold_ms: input.thresholdMs, waiting: parked.rows.length },
    });
    return { accountId: row.account_id, parked: parked.rows };
  });
  if (!result) return null;
  deps.logger.warn("integration disabled: every attempt failed for the threshold", {
    integrationId: input.integrationId,
    accountId: result.accountId,
    thresholdMs: input.thresholdMs,
    waiting: result.parked.length,
    lastStatusCode: input.lastError.statusCode,
    lastErrorKind: input.lastError.errorKind,
  });
  await removeWaitingJobs(deps, result.parked);
  return { integrationId: input.integrationId, accountId: result.accountId, reason, waiting: result.parked.length };
}

async function removeWaitingJobs(
  deps: { queue: WebhookQueue; logger: Logger },
  rows: readonly { id: string; attempt_count: number }[],
): Promise<void> {
  try {
    for (let start = 0; start < rows.length; start += REMOVE_BATCH) {
      const batch = rows.slice(start, start + REMOVE_BATCH);
      await Promise.all(batch.map((row) => deps.queue.remove(deliverWebhookJob.jobId(row.id, row.attempt_count + 1))));
    }
  } catch (error) {
    // Committed already: a job left behind finds its integration disabled and parks its row again.
    deps.logger.warn("jobs of a disabled integration not removed; they park their rows when they run", {
      count: rows.length,
      error: (error as Error).message,
    });
  }
}

export interface EnabledIntegration {
  integrationId: string;
  /** False: it was not disabled (nothing changed, nothing audited). */
  wasDisabled: boolean;
  /** Waiting deliveries put back in the queue, each with a fresh budget. */
  resumed: number;
}

const LOCK_INTEGRATION = `
SELECT disabled_at, disabled_reason FROM integrations WHERE id = $1::uuid AND account_id = $2::uuid FOR UPDATE`;

const ENABLE = `UPDATE integrations SET disabled_at = NULL, disabled_reason = NULL, updated_at = $2 WHERE id = $1::uuid`;

// The waiting deliveries, each due now with a fresh budget (as a manual retry gives: X-PT-Attempt counts on).
const RESUME_WAITING = `
UPDATE deliveries SET next_attempt_at = $3, budget_start = attempt_count, budget_started_at = $3, updated_at = $3
WHERE account_id = $2::uuid AND status = 'pending' AND integration_id = $1::uuid AND next_attempt_at IS NULL
RETURNING id::text AS id, attempt_count`;

/**
 * Re-enable an integration disabled by endpoint health (the panel's button, `POST /integrations/{id}/enable`, the
 * CLI): its waiting deliveries are due at once with a fresh budget of automatic attempts and a fresh deadline.
 * The integration, the deliveries and the audit entry (`<origin>.integration.enabled`) commit together; the first
 * ENABLE_QUEUE_LIMIT jobs are queued after the commit, the sweep queues the rest. One not disabled is left as it is
 * (`wasDisabled: false`). `not_found` when the integration is not the account's.
 */
export async function enableIntegration(
  deps: {
    db: Db;
    /** Absent (the CLI, which holds no webhook queue): the dispatcher's sweep queues the resumed deliveries. */
    queue?: WebhookQueue;
    logger?: Logger;
  },
  input: { accountId: string; integrationId: string; actor: Actor; now?: Date },
): Promise<EnabledIntegration> {
  const notFound = () => new ApiError("not_found", { message: "A integração não foi encontrada nesta conta." });
  if (!UUID.test(input.integrationId) || !UUID.test(input.accountId)) throw notFound();
  const now = input.now ?? new Date();
  const result = await inTransaction(deps.db.sql, async (client) => {
    const locked = await client.query<{ disabled_at: Date | null; disabled_reason: string | null }>({
      name: "endpoint-lock-integration",
      text: LOCK_INTEGRATION,
      values: [input.integrationId, input.accountId],
    });
    const row = locked.rows[0];
    if (!row) throw notFound();
    if (row.disabled_at === null) return { wasDisabled: false, resumed: [] };
    await client.query({ name: "endpoint-enable", text: ENABLE, values: [input.integrationId, now] });
    const resumed = await client.query<{ id: string; attempt_count: number }>({
      name: "endpoint-resume-waiting",
      text: RESUME_WAITING,
      values: [input.integrationId, input.accountId, now],
    });
    await recordAuditAs(client, input, "integration.enabled", {
      target: `integration:${input.integrationId}`,
      details: {
        disabled_at: row.disabled_at.toISOString(),
        disabled_reason: row.disabled_reason,
        resumed: resumed.rows.length,
      },
    });
    return { wasDisabled: true, resumed: resumed.rows };
  });
  if (result.wasDisabled) {
    deps.logger?.info("integration re-enabled; its waiting deliveries resume", {
      integrationId: input.integrationId,
      accountId: input.accountId,
      resumed: result.resumed.length,
    });
    const attempts: AttemptToQueue[] = result.resumed.slice(0, ENABLE_QUEUE_LIMIT).map((row) => ({
      deliveryId: row.id,
      attempt: row.attempt_count + 1,
      integrationId: input.integrationId,
    }));
    try {
      // Without a queue they are committed as pending and due: the sweep queues them.
      if (deps.queue) await ensureAttemptsQueued(deps.queue, attempts);
    } catch (error) {
      // Committed as pending and due: the sweep queues them once Redis answers.
      deps.logger?.warn("re-enabled integration's deliveries not queued now; the sweep will queue them", {
        count: attempts.length,
        error: (error as Error).message,
      });
    }
  }
  return { integrationId: input.integrationId, wasDisabled: result.wasDisabled, resumed: result.resumed.length };
}
