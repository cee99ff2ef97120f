import type { Db } from "@gw/db";
import type { DeliverWebhookPayload } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import { SecretUnreadableError, signatureHeaders, type SecretBox } from "@gw/signer";
import type { WebhookResult, WebhookSender } from "@gw/webhook-sender";
import { SECRET_UNAVAILABLE, type DeliveryErrorKind } from "./error-kinds.ts";
import { integrationSigningSecrets } from "./integration-secrets.ts";
import { DEFAULT_HOLD_RECHECK_MS, holdBehindEarlier, releaseAndQueueNext } from "./ordering.ts";
import { PARKED_BUDGET_START, nextDelayMs } from "./schedule.ts";
import type { DeliveryScheduler } from "./scheduling.ts";
import { createDeliveryStatements, type ClaimedRow, type DeliveryStatements } from "./statements.ts";
import { tracedAttempt } from "./trace.ts";

/**
 * One attempt of one delivery: claim the row, ask the gate (the dispatcher's in-flight cap and breaker) and the
 * ordering, sign with the integration's secrets, send, record the result and schedule the next attempt, release what
 * waited behind it. Its two statements (claim, record) are in statements.ts.
 */

export interface DeliverySettings {
  /** Waits before the retries of one budget, in ms (spec 6.5). */
  scheduleMs: readonly number[];
  /** Uniform variation of each wait, 0.2 = ±20 %. */
  jitter: number;
  userAgent: string;
  /** Ordered delivery: a held delivery looks again this long after its head's next attempt (ordering.ts). */
  holdRecheckMs?: number;
  /** A `delivering` row claimed longer ago than this lost its worker and may be claimed again (DEFAULT_CLAIM_STALE_MS). */
  claimStaleMs?: number;
}

/** Why an attempt was put off without being made (no HTTP request, no attempt spent). */
export type DeferReason = "in_flight_cap" | "breaker_open";

export type AttemptAdmission =
  | {
      admitted: true;
      /** Once the attempt is over: its HTTP result, or null when no request was made. Called once. */
      leave(result: WebhookResult | null): void;
    }
  | { admitted: false; reason: DeferReason; retryAt: Date };

/**
 * Admission of attempts per integration (the dispatcher's in-flight cap and circuit breaker). `enter` does no
 * I/O: it is asked before the claim when the job names its integration, right after the claim otherwise.
 */
export interface AttemptGate {
  enter(integrationId: string): AttemptAdmission;
  /**
   * How many `enter`s would be admitted now, asking nothing of the gate (a refused `enter` books the next slot of the
   * integration's queue: a job of several attempts asks for what it can have instead). Absent: one at a time.
   */
  room?(integrationId: string): number;
  /**
   * For a job of several attempts that found no room: true once a slot of the integration freed (ask `room` again),
   * false when the job should be deferred instead (its breaker is open, or enough jobs wait already). Absent: defer.
   */
  whenRoom?(integrationId: string): Promise<boolean>;
}

export interface ProcessDeliveryDeps {
  db: Db;
  /** Where the next attempt is scheduled. */
  scheduler: DeliveryScheduler;
  sender: WebhookSender;
  /** Opens the integration's sealed secrets (the dispatcher's caches what it opened). */
  secrets: Pick<SecretBox, "open">;
  logger: Logger;
  settings: DeliverySettings;
  /** Absent: every attempt is made at once. */
  gate?: AttemptGate;
  /** The claim and result statements, grouped across concurrent attempts; absent: one statement per attempt. */
  statements?: DeliveryStatements;
  now?: () => Date;
  random?: () => number;
}

export type AttemptOutcome =
  | {
      outcome: "delivered" | "retry_scheduled" | "failed";
      attempt: number;
      event: string;
      integrationId: string;
      statusCode: number | null;
      errorKind: DeliveryErrorKind | null;
      durationMs: number;
      /** Set for `retry_scheduled`. */
      nextAttemptAt: Date | null;
    }
  | { outcome: "integration_inactive"; attempt: number; event: string; integrationId: string }
  /**
   * Nothing sent, nothing spent: the integration is at its in-flight cap or its breaker is open. The job is to run
   * again at `retryAt`; the row is left (or put back) as it was: pending, same attempt_count.
   */
  | { outcome: "deferred"; attempt: number; integrationId: string; reason: DeferReason; retryAt: Date }
  /**
   * Ordered delivery: an earlier delivery of the same ordering key is unsettled. Nothing sent, nothing spent; the
   * row waits `pending` (held) until that one settles and releases it (or until `recheckAt`).
   */
  | { outcome: "held"; attempt: number; integrationId: string; headId: string; recheckAt: Date }
  /** Nothing done: the row no longer wants this attempt (duplicate, stale or already performed job). */
  | { outcome: "skipped"; attempt: number; reason: "not_found" | "stale" | "raced" | "integration_disabled" };

/** One statement per attempt (no grouping, no cap): what an attempt uses when its deps bring no statements. */
function statementsOf(deps: ProcessDeliveryDeps): DeliveryStatements {
  return deps.statements ?? createDeliveryStatements(deps.db, { maxBatch: 1, maxInFlight: Number.POSITIVE_INFINITY });
}

/**
 * How long a claim holds its row against another job of the same attempt. A `delivering` row claimed more recently
 * belongs to a live attempt (a second job for it, from the sweep or a re-run, must not POST it again); an older one
 * was left by a worker that died, and is taken over. Default: a minute, the dispatcher's job lock (BullMQ re-runs a
 * dead worker's job only after it).
 */
export const DEFAULT_CLAIM_STALE_MS = 60_000;

// Give back a claim the gate refused: the row wants the same attempt again, nothing was sent.
const RELEASE_CLAIM = `
UPDATE deliveries SET status = 'pending', updated_at = $3
WHERE id = $1::bigint AND status = 'delivering' AND attempt_count = $2 - 1`;

// Give back a claim whose signing secret did not open: nothing was sent and no attempt is spent, but the row says
// why it is not delivered (no status code, no body: no endpoint answered), until an attempt succeeds or its deadline
// fails it (expiry.ts keeps the kind then).
const RELEASE_CLAIM_SECRET_UNAVAILABLE = `
UPDATE deliveries SET status = 'pending', last_status_code = NULL, last_error = NULL,
  last_error_kind = '${SECRET_UNAVAILABLE}', updated_at = $3
WHERE id = $1::bigint AND status = 'delivering' AND attempt_count = $2 - 1`;

// A claim for an integration disabled by endpoint health: the row waits without a next attempt (see
// admin/endpoint-health.ts), only while the integration is still disabled (a re-enable in between resumes it).
const PARK_DELIVERY = `
UPDATE deliveries d SET status = 'pending', next_attempt_at = NULL, budget_started_at = '${PARKED_BUDGET_START}', updated_at = $3
FROM integrations i
WHERE d.id = $1::bigint AND d.status = 'delivering' AND d.attempt_count = $2 - 1 AND i.id = d.integration_id
  AND i.disabled_at IS NOT NULL`;

/** The gate's admission held by one attempt, left exactly once. */
interface Slot {
  held: Extract<AttemptAdmission, { admitted: true }> | null;
}

function leaveSlot(slot: Slot, result: WebhookResult | null): void {
  const held = slot.held;
  slot.held = null;
  held?.leave(result);
}

/** What one attempt is about: the job's delivery and attempt, and the trace context the job carries. */
interface AttemptJob {
  deliveryId: string;
  attempt: number;
  traceparent?: string | null | undefined;
}

/**
 * Perform one attempt of one delivery. Postgres is the source of truth: the row is claimed with a conditional
 * update that also loads it, and the attempt's outcome is committed (attempt row + delivery) before this
 * returns, so the job completes only once nothing can be lost. Safe to run twice for the same attempt: the
 * claim takes a `delivering` row only once its claim is stale (its worker died), and the attempt row is an upsert.
 *
 * With a gate, the attempt first needs its integration's admission: asked before any query when the job names
 * the integration, right after the claim otherwise (a refused claim is given back). A refusal is `deferred`.
 */
export async function processDeliveryAttempt(
  deps: ProcessDeliveryDeps,
  job: DeliverWebhookPayload,
): Promise<AttemptOutcome> {
  const slot: Slot = { held: null };
  if (deps.gate && job.integrationId !== undefined) {
    const admission = deps.gate.enter(job.integrationId);
    if (!admission.admitted) return deferred(job.attempt, job.integrationId, admission);
    slot.held = admission;
  }
  try {
    const statements = statementsOf(deps);
    const claimed = await statements.claim(claimInput(deps, job));
    return await attemptClaimed(deps, job, claimed, slot, (input) => statements.record(input));
  } finally {
    leaveSlot(slot, null);
  }
}

/** A job's first attempts of several deliveries of one integration (@gw/jobs deliverFirstAttemptsJob). */
export interface FirstAttemptsJob {
  integrationId: string;
  deliveryIds: readonly string[];
  traceparents?: readonly (string | null)[] | undefined;
}

export type FirstAttemptsOutcome =
  | { kind: "done"; outcomes: AttemptOutcome[] }
  /**
   * The integration had no room (its in-flight cap, its breaker) for what is left: the job is to run again at
   * `retryAt` with `remaining` (nothing of those was sent or claimed).
   */
  | { kind: "deferred"; outcomes: AttemptOutcome[]; remaining: FirstAttemptsJob; reason: DeferReason; retryAt: Date };

/**
 * The first attempts a job carries, in waves: as many as the integration's gate admits now, claimed in one statement,
 * sent side by side, recorded in one statement; then the next wave. When the gate admits none, what is left is handed
 * back to be deferred. Each attempt is the same as `processDeliveryAttempt`'s (claim, hold, sign, send, record,
 * schedule, release), so a delivery's fate does not depend on the job that carried it.
 */
export async function processFirstAttempts(
  deps: ProcessDeliveryDeps,
  job: FirstAttemptsJob,
): Promise<FirstAttemptsOutcome> {
  const outcomes: AttemptOutcome[] = [];
  const items = job.deliveryIds.map((deliveryId, index) => ({
    deliveryId,
    attempt: 1,
    traceparent: job.traceparents?.[index] ?? null,
  }));
  let next = 0;
  while (next < items.length) {
    const wave: { job: AttemptJob; slot: Slot }[] = [];
    let refusal: Extract<AttemptAdmission, { admitted: false }> | null = null;
    const left = items.slice(next);
    // As many as the integration has room for now. With none, the job waits for a slot in this worker slot while few
    // jobs do (its own earlier waves and the integration's other jobs hold them), rather than going round the delayed
    // set; else one `enter` for its refusal (and its return time) and the rest is deferred.
    const room = deps.gate ? Math.min(left.length, deps.gate.room?.(job.integrationId) ?? 1) : left.length;
    if (deps.gate && room === 0 && (await deps.gate.whenRoom?.(job.integrationId))) continue;
    for (const item of left.slice(0, Math.max(1, room))) {
      if (!deps.gate) {
        wave.push({ job: item, slot: { held: null } });
        continue;
      }
      const admission = deps.gate.enter(job.integrationId);
      if (!admission.admitted) {
        refusal = admission;
        break;
      }
      wave.push({ job: item, slot: { held: admission } });
    }
    if (wave.length === 0 && refusal) {
      return {
        kind: "deferred",
        outcomes,
        reason: refusal.reason,
        retryAt: refusal.retryAt,
        remaining: {
          integrationId: job.integrationId,
          deliveryIds: left.map((item) => item.deliveryId),
          ...(job.traceparents ? { traceparents: left.map((item) => item.traceparent) } : {}),
        },
      };
    }
    next += wave.length;
    outcomes.push(...(await attemptWave(deps, wave)));
  }
  return { kind: "done", outcomes };
}

/** One wave of a job's attempts: one claim statement, the requests side by side, one result statement. */
async function attemptWave(
  deps: ProcessDeliveryDeps,
  wave: readonly { job: AttemptJob; slot: Slot }[],
): Promise<AttemptOutcome[]> {
  const statements = statementsOf(deps);
  try {
    const claims = statements.claimAll(wave.map(({ job }) => claimInput(deps, job)));
    // The results of the wave's requests are recorded together: each attempt hands its result in and waits for
    // the statement that records all of them (or its own, when it ends before the others are ready).
    const recorder = recordTogether(statements, wave.length);
    const settled = await Promise.allSettled(
      wave.map(async ({ job, slot }, index) => {
        const own = recorder();
        try {
          const row = (await claims[index]) ?? null;
          return await attemptClaimed(deps, job, row, slot, (input) => own.record(input));
        } finally {
          own.ended();
        }
      }),
    );
    const failure = settled.find((s) => s.status === "rejected");
    // A signing secret that does not open fails the job (BullMQ tries it again; what was done is not redone).
    if (failure) throw failure.reason;
    return settled.map((s) => (s.status === "fulfilled" ? s.value : skippedRaced(1)));
  } finally {
    for (const { slot } of wave) leaveSlot(slot, null);
  }
}

/**
 * The results of a wave's `expected` attempts, recorded in as few statements as they allow: a result waits until every
 * other attempt of the wave has handed its own in or ended without one, then they all leave in one statement.
 */
function recordTogether(statements: DeliveryStatements, expected: number) {
  let waiting = expected;
  let handedIn: { input: RecordInput; resolve: (ok: boolean) => void; reject: (e: unknown) => void }[] = [];
  const flush = () => {
    if (handedIn.length === 0 || handedIn.length < waiting) return;
    const batch = handedIn;
    handedIn = [];
    waiting -= batch.length;
    const answers = statements.recordAll(batch.map((item) => item.input));
    for (const [index, item] of batch.entries()) answers[index]?.then(item.resolve, item.reject);
  };
  /** One attempt's side: its result, or that it ended without one. */
  return () => {
    let recorded = false;
    return {
      record(input: RecordInput): Promise<boolean> {
        recorded = true;
        return new Promise<boolean>((resolve, reject) => {
          handedIn.push({ input, resolve, reject });
          flush();
        });
      },
      ended() {
        if (recorded) return;
        waiting--;
        flush();
      },
    };
  };
}

type RecordInput = Parameters<DeliveryStatements["record"]>[0];

function claimInput(deps: ProcessDeliveryDeps, job: AttemptJob) {
  const now = (deps.now ?? (() => new Date()))();
  const staleMs = deps.settings.claimStaleMs ?? DEFAULT_CLAIM_STALE_MS;
  return { deliveryId: job.deliveryId, attempt: job.attempt, now, staleBefore: new Date(now.getTime() - staleMs) };
}

function deferred(
  attempt: number,
  integrationId: string,
  refusal: Extract<AttemptAdmission, { admitted: false }>,
): AttemptOutcome {
  return { outcome: "deferred", attempt, integrationId, reason: refusal.reason, retryAt: refusal.retryAt };
}

function skippedRaced(attempt: number): AttemptOutcome {
  return { outcome: "skipped", attempt, reason: "raced" };
}

/**
 * One claimed attempt, from its row to its recorded result: the cases that send nothing (the row no longer wants
 * it, an inactive or disabled integration, an earlier delivery holding it, the gate), then the request, its result
 * (through `record`) and what follows it (the next attempt scheduled, the next ordered delivery released).
 */
async function attemptClaimed(
  deps: ProcessDeliveryDeps,
  job: AttemptJob,
  delivery: ClaimedRow | null,
  slot: Slot,
  record: (input: RecordInput) => Promise<boolean>,
): Promise<AttemptOutcome> {
  const { db, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const { attempt, deliveryId } = job;
  const log = { deliveryId, attempt };

  if (!delivery) {
    // Rare path: tell a job for a deleted delivery from one the row no longer expects (metrics label).
    const exists = await db.sql.query({
      name: "delivery-exists",
      text: `SELECT 1 FROM deliveries WHERE id = $1::bigint`,
      values: [deliveryId],
    });
    logger.debug("job skipped: the delivery does not expect this attempt", { ...log, found: exists.rowCount === 1 });
    return { outcome: "skipped", attempt, reason: exists.rowCount === 1 ? "stale" : "not_found" };
  }

  if (!delivery.active) {
    // Dead-letter without an HTTP attempt: a manual retry after re-activation sends it.
    const { rowCount } = await db.sql.query({
      name: "delivery-integration-inactive",
      text: `UPDATE deliveries SET status = 'failed', next_attempt_at = NULL, last_status_code = NULL, last_error = NULL,
          last_error_kind = 'integration_inactive', updated_at = $3
        WHERE id = $1::bigint AND status = 'delivering' AND attempt_count = $2 - 1`,
      values: [deliveryId, attempt, now()],
    });
    if (rowCount === 0) return skippedRaced(attempt);
    logger.info("integration inactive; delivery failed without an attempt", log);
    await releaseNext(deps, delivery, now());
    return { outcome: "integration_inactive", attempt, event: delivery.event, integrationId: delivery.integration_id };
  }

  if (delivery.disabled) {
    const { rowCount } = await db.sql.query({
      name: "park-delivery",
      text: PARK_DELIVERY,
      values: [deliveryId, attempt, now()],
    });
    // Re-enabled between the claim and now: give the claim back; the sweep queues the row (its next attempt is due).
    if (rowCount === 0)
      await db.sql.query({ name: "release-delivery-claim", text: RELEASE_CLAIM, values: [deliveryId, attempt, now()] });
    logger.debug("integration disabled; delivery waits for its re-enable", { ...log, parked: rowCount === 1 });
    return { outcome: "skipped", attempt, reason: rowCount === 1 ? "integration_disabled" : "raced" };
  }

  if (delivery.ordering_key !== null) {
    // Ordered delivery: an earlier delivery of the same message (or contact) still unsettled holds this one.
    const held = await holdBehindEarlier(db.sql, {
      deliveryId,
      integrationId: delivery.integration_id,
      orderingKey: delivery.ordering_key,
      attempt,
      now: now(),
      recheckMs: deps.settings.holdRecheckMs ?? DEFAULT_HOLD_RECHECK_MS,
    });
    if (held) {
      logger.debug("delivery held behind an earlier one of its ordering key", { ...log, headId: held.headId });
      return { outcome: "held", attempt, integrationId: delivery.integration_id, ...held };
    }
  }

  if (deps.gate && slot.held === null) {
    // The job did not name its integration: ask now, and give the claim back when refused.
    const admission = deps.gate.enter(delivery.integration_id);
    if (!admission.admitted) {
      await db.sql.query({ name: "release-delivery-claim", text: RELEASE_CLAIM, values: [deliveryId, attempt, now()] });
      return deferred(attempt, delivery.integration_id, admission);
    }
    slot.held = admission;
  }

  const { result, startedAt } = await sendAttempt(deps, job, delivery);
  // The integration's slot is free once the request is over (recording the result needs no endpoint).
  leaveSlot(slot, result);

  const finishedAt = now();
  const ok = result.errorKind === null;
  const delay = ok
    ? null
    : nextDelayMs(attempt - delivery.budget_start, deps.settings.scheduleMs, deps.settings.jitter, deps.random);
  const outcome: "delivered" | "retry_scheduled" | "failed" = ok
    ? "delivered"
    : delay === null
      ? "failed"
      : "retry_scheduled";
  const nextAttemptAt = delay === null ? null : new Date(finishedAt.getTime() + delay);

  const recorded = await record({
    deliveryId,
    attempt,
    status: outcome === "retry_scheduled" ? "pending" : outcome,
    nextAttemptAt,
    statusCode: result.statusCode,
    responseBody: result.responseBody,
    errorKind: result.errorKind,
    finishedAt,
    startedAt,
    durationMs: result.durationMs,
  });
  if (!recorded) {
    logger.warn("attempt finished by another worker; this result is dropped", log);
    return skippedRaced(attempt);
  }

  const fields = {
    ...log,
    outcome,
    statusCode: result.statusCode,
    errorKind: result.errorKind,
    durationMs: result.durationMs,
  };
  if (outcome === "retry_scheduled" && nextAttemptAt !== null) {
    await deps.scheduler.schedule(deliveryId, attempt + 1, nextAttemptAt, delivery.integration_id);
    logger.info("webhook attempt failed; next attempt scheduled", {
      ...fields,
      nextAttemptAt: nextAttemptAt.toISOString(),
    });
  } else if (outcome === "failed") {
    logger.warn("automatic attempts exhausted; delivery failed", fields);
  } else {
    logger.debug("webhook delivered", fields);
  }
  if (outcome !== "retry_scheduled") await releaseNext(deps, delivery, finishedAt);
  return {
    outcome,
    attempt,
    event: delivery.event,
    integrationId: delivery.integration_id,
    statusCode: result.statusCode,
    errorKind: result.errorKind,
    durationMs: result.durationMs,
    nextAttemptAt,
  };
}

/**
 * The request of one claimed attempt: signed with the integration's current secrets and a fresh timestamp (spec 5.6;
 * the body bytes never change), sent in the trace of its delivery. A secret that does not open sends nothing: the
 * claim is given back with the cause on the row, and the error is thrown (the job fails and is tried again).
 */
async function sendAttempt(
  deps: ProcessDeliveryDeps,
  job: AttemptJob,
  delivery: ClaimedRow,
): Promise<{ result: WebhookResult; startedAt: Date }> {
  const now = deps.now ?? (() => new Date());
  const { attempt, deliveryId } = job;
  const startedAt = now();
  const timestamp = Math.floor(startedAt.getTime() / 1000);
  let secrets: { current: string; previous: string | null };
  try {
    secrets = integrationSigningSecrets(
      deps.secrets,
      {
        integrationId: delivery.integration_id,
        current: { sealed: delivery.signing_secret_encrypted, clear: delivery.signing_secret },
        previous: { sealed: delivery.previous_signing_secret_encrypted, clear: delivery.previous_signing_secret },
        previousExpiresAt: delivery.previous_secret_expires_at,
      },
      startedAt,
    );
  } catch (error) {
    // Fail closed: a secret that does not open (its key left SECRETS_KEYS, or the value was altered) sends nothing
    // and spends no attempt. The claim is given back with the cause on the row (`secret_unavailable`), and the job
    // fails, so it is tried again (BullMQ, then the sweep) until the key ring or the secret is fixed, or the
    // deadline passes. The error names the place and the key id, never a value.
    await deps.db.sql.query({
      name: "release-delivery-claim-secret-unavailable",
      text: RELEASE_CLAIM_SECRET_UNAVAILABLE,
      values: [deliveryId, attempt, now()],
    });
    deps.logger.error("integration signing secret cannot be decrypted; nothing sent", {
      deliveryId,
      attempt,
      integrationId: delivery.integration_id,
      ...(error instanceof SecretUnreadableError ? { reason: error.reason, keyId: error.keyId } : {}),
      error: (error as Error).message,
    });
    throw error;
  }
  const trace = {
    deliveryId,
    attempt,
    event: delivery.event,
    integrationId: delivery.integration_id,
    url: delivery.url,
    traceparent: delivery.trace_context ?? job.traceparent,
  };
  const result = await tracedAttempt(trace, (traceparent) =>
    deps.sender.send({
      url: delivery.url,
      body: delivery.body,
      headers: {
        "Content-Type": "application/json",
        "User-Agent": deps.settings.userAgent,
        // The integration's scheme: X-PT-Timestamp/-Signature(-Previous), or Standard Webhooks' webhook-id/-timestamp/
        // -signature; during a rotation's overlap the replaced secret signs too (docs/webhooks.md).
        ...signatureHeaders(delivery.signature_scheme, { secrets, deliveryId, timestamp, body: delivery.body }),
        "X-PT-Delivery-Id": deliveryId,
        "X-PT-Attempt": String(attempt),
        "X-PT-Event": delivery.event,
        // W3C trace context: the attempt's span, in the trace of the send that caused the event (docs/webhooks.md),
        // exported or not: an integrator joins it whether or not the operator records traces (an added header).
        traceparent,
      },
    }),
  );
  return { result, startedAt };
}

/** Ordered delivery: once this delivery settled, the next of its key (when held) is due and queued now. */
async function releaseNext(deps: ProcessDeliveryDeps, delivery: ClaimedRow, now: Date): Promise<void> {
  if (delivery.ordering_key === null) return;
  await releaseAndQueueNext(
    { sql: deps.db.sql, scheduler: deps.scheduler, logger: deps.logger },
    [{ integrationId: delivery.integration_id, orderingKey: delivery.ordering_key }],
    now,
  );
}
