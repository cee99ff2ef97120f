import type { DELIVERY_STATUSES } from "@gw/contracts";
import type { Db } from "@gw/db";
import type { SignatureScheme } from "@gw/signer";
import { groupCalls, type CallOutcome } from "../../batching/group-calls.ts";
import type { DeliveryErrorKind } from "./error-kinds.ts";

// The claim and the record of an attempt (processDeliveryAttempt's first and last statements), each able to serve
// many concurrent attempts in one round trip.

export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface ClaimedRow {
  event: string;
  body: string;
  budget_start: number;
  integration_id: string;
  url: string;
  /** Sealed; the clear column only on a row stored before encryption (integration-secrets.ts). */
  signing_secret_encrypted: string | null;
  signing_secret: string | null;
  /** Set during a rotation's overlap, until `previous_secret_expires_at`. */
  previous_signing_secret_encrypted: string | null;
  previous_signing_secret: string | null;
  previous_secret_expires_at: Date | null;
  active: boolean;
  /** Which headers sign the attempt (issue 21). */
  signature_scheme: SignatureScheme;
  /** Disabled by endpoint health (admin/endpoint-health.ts): the delivery waits for the re-enable. */
  disabled: boolean;
  /** Set only when the integration delivers in order and the delivery has a key (ordering.ts). */
  ordering_key:
    string | null; /** The W3C context its attempts are children of (trace.ts); null on rows stored before traces. */
  trace_context: string | null;
}

// Load and claim in one statement, for every job of a batch (deliveryStatements): each row must still want its
// attempt (attempt_count = attempt - 1) and be free: pending, or delivering under a claim older than the stale bound
// (its worker died). A claim younger than that is a live attempt's: a second job of the same attempt (the sweep's, a
// re-run) finds nothing to claim, so an attempt is POSTed once. The integration's URL and secrets come with it (the
// previous secret only while its rotation overlap lasts, at the job's own time).
const CLAIM = `
UPDATE deliveries d SET status = 'delivering', updated_at = j.now
FROM integrations i, unnest($1::bigint[], $2::int[], $3::timestamptz[], $4::timestamptz[]) AS j(id, attempt, now, stale_before)
WHERE d.id = j.id AND d.attempt_count = j.attempt - 1
  AND (d.status = 'pending' OR (d.status = 'delivering' AND d.updated_at < j.stale_before))
  AND i.id = d.integration_id
RETURNING d.id::text AS delivery_id, j.attempt, d.event, d.body, d.budget_start, i.id AS integration_id, i.url,
  i.signing_secret_encrypted, i.signing_secret,
  CASE WHEN i.previous_secret_expires_at > j.now THEN i.previous_signing_secret_encrypted END
    AS previous_signing_secret_encrypted,
  CASE WHEN i.previous_secret_expires_at > j.now THEN i.previous_signing_secret END AS previous_signing_secret,
  CASE WHEN i.previous_secret_expires_at > j.now THEN i.previous_secret_expires_at END AS previous_secret_expires_at,
  i.active, i.signature_scheme, i.disabled_at IS NOT NULL AS disabled,
  CASE WHEN i.deliver_in_order THEN d.ordering_key END AS ordering_key, d.trace_context`;

// Every result of a batch and its attempt row in one statement (one round trip, one commit). Each update is
// conditional: if another worker re-ran an attempt and committed first, nothing is written for it and its record
// stands.
const RECORD_RESULTS = `
WITH input AS (
  SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::timestamptz[], $5::int[], $6::text[], $7::text[],
      $8::timestamptz[], $9::timestamptz[], $10::int[])
    AS t(id, attempt, status, next_attempt_at, status_code, response_body, error_kind, finished_at, started_at,
      duration_ms)
), updated AS (
  UPDATE deliveries d SET status = t.status, attempt_count = t.attempt, next_attempt_at = t.next_attempt_at,
    last_status_code = t.status_code, last_error = t.response_body, last_error_kind = t.error_kind,
    delivered_at = CASE WHEN t.status = 'delivered' THEN t.finished_at ELSE d.delivered_at END,
    updated_at = t.finished_at
  FROM input t
  WHERE d.id = t.id AND d.status = 'delivering' AND d.attempt_count = t.attempt - 1
  RETURNING d.id, d.integration_id, t.attempt, t.started_at, t.duration_ms, t.status_code, t.error_kind,
    t.response_body
)
INSERT INTO delivery_attempts (delivery_id, number, started_at, duration_ms, status_code, error_kind, response_body,
  integration_id)
SELECT id, attempt, started_at, duration_ms, status_code, error_kind, response_body, integration_id FROM updated
ON CONFLICT (delivery_id, number) DO UPDATE SET started_at = EXCLUDED.started_at, duration_ms = EXCLUDED.duration_ms,
  status_code = EXCLUDED.status_code, error_kind = EXCLUDED.error_kind, response_body = EXCLUDED.response_body
RETURNING delivery_id::text, number`;

interface ClaimInput {
  deliveryId: string;
  attempt: number;
  now: Date;
  /** A `delivering` row claimed before this is taken over (its worker died); after it, it is a live attempt's. */
  staleBefore: Date;
}

interface ResultInput {
  deliveryId: string;
  attempt: number;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  statusCode: number | null;
  responseBody: string | null;
  errorKind: DeliveryErrorKind | null;
  finishedAt: Date;
  startedAt: Date;
  durationMs: number;
}

/**
 * The two statements every attempt makes, the claim and the result, each able to serve many concurrent attempts in
 * one round trip (batching/group-calls.ts): the dispatcher's jobs run side by side, and on a busy pod their
 * round trips to PostgreSQL were a third of its CPU. A batch's statement failing fails each of its attempts, as its
 * own statement failing would.
 */
export interface DeliveryStatements {
  /** The row, claimed for this attempt; null when it no longer wants it. */
  claim(input: ClaimInput): Promise<ClaimedRow | null>;
  /** Several claims that leave together (one job's attempts). */
  claimAll(inputs: readonly ClaimInput[]): Promise<ClaimedRow | null>[];
  /** Whether the result was recorded (false: another worker finished this attempt first). */
  record(input: ResultInput): Promise<boolean>;
  /** Several results that leave together (one job's attempts). */
  recordAll(inputs: readonly ResultInput[]): Promise<boolean>[];
}

export interface DeliveryStatementOptions {
  /** Most attempts one statement serves; 1: one statement per attempt. */
  maxBatch: number;
  /** Most statements of each kind at once. */
  maxInFlight: number;
  /** Told the size of each statement run (a metric). */
  onBatch?: (statement: "claim" | "record", size: number) => void;
}

const attemptKey = (deliveryId: string, attempt: number) => `${deliveryId}:${attempt}`;

async function runClaims(db: Db, inputs: readonly ClaimInput[]): Promise<CallOutcome<ClaimedRow | null>[]> {
  const { rows } = await db.sql.query<ClaimedRow & { delivery_id: string; attempt: number }>({
    name: "claim-deliveries",
    text: CLAIM,
    values: [
      inputs.map((i) => i.deliveryId),
      inputs.map((i) => i.attempt),
      inputs.map((i) => i.now),
      inputs.map((i) => i.staleBefore),
    ],
  });
  const claimed = new Map(rows.map((row) => [attemptKey(row.delivery_id, row.attempt), row]));
  // Two jobs of one attempt in a batch: the row goes to the first, the other finds it claimed (stale).
  return inputs.map((input) => {
    const key = attemptKey(input.deliveryId, input.attempt);
    const row = claimed.get(key) ?? null;
    claimed.delete(key);
    return { ok: true, value: row };
  });
}

async function runResults(db: Db, inputs: readonly ResultInput[]): Promise<CallOutcome<boolean>[]> {
  const { rows } = await db.sql.query<{ delivery_id: string; number: number }>({
    name: "record-delivery-results",
    text: RECORD_RESULTS,
    values: [
      inputs.map((i) => i.deliveryId),
      inputs.map((i) => i.attempt),
      inputs.map((i) => i.status),
      inputs.map((i) => i.nextAttemptAt),
      inputs.map((i) => i.statusCode),
      inputs.map((i) => i.responseBody),
      inputs.map((i) => i.errorKind),
      inputs.map((i) => i.finishedAt),
      inputs.map((i) => i.startedAt),
      inputs.map((i) => i.durationMs),
    ],
  });
  const recorded = new Set(rows.map((row) => attemptKey(row.delivery_id, row.number)));
  return inputs.map((input) => {
    const key = attemptKey(input.deliveryId, input.attempt);
    const value = recorded.has(key);
    recorded.delete(key);
    return { ok: true, value };
  });
}

/** The claim and result statements, grouped across concurrent attempts (the dispatcher makes one set per process). */
export function createDeliveryStatements(db: Db, options: DeliveryStatementOptions): DeliveryStatements {
  const group = (statement: "claim" | "record") => ({
    maxBatch: options.maxBatch,
    maxInFlight: options.maxInFlight,
    onBatch: (size: number) => options.onBatch?.(statement, size),
  });
  const claims = groupCalls((inputs: readonly ClaimInput[]) => runClaims(db, inputs), group("claim"));
  const results = groupCalls((inputs: readonly ResultInput[]) => runResults(db, inputs), group("record"));
  return {
    claim: (input) => claims.call(input),
    claimAll: (inputs) => claims.callAll(inputs),
    record: (input) => results.call(input),
    recordAll: (inputs) => results.callAll(inputs),
  };
}
