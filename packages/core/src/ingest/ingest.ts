import { createHash } from "node:crypto";
import { replaceUnstorable } from "@gw/contracts";
import { inTransaction, isDatabaseUnavailable, type Db, type Sql } from "@gw/db";
import type { Logger } from "@gw/logger";
import type { QuarantinedItem } from "@gw/meta";
import { currentTraceContext, runInSpan, startSpan, withSpan, type TraceContext, type TraceSpan } from "@gw/tracing";
import type { AccountDirectory } from "../accounts/directory.ts";
import type { ContactSighting } from "../contacts/contacts.ts";
import type { LearntSightings } from "../contacts/key-cache.ts";
import { insertDeliveries, type CommittedDelivery, type Outbox } from "../deliveries/attempt/outbox.ts";
import { changedTemplateCatalogues } from "../health/index.ts";
import { groupCalls, type CallOutcome } from "../batching/group-calls.ts";
import { emptyPlan, planItems, sightingId, type Plan } from "./plan.ts";
import { applyTogether, itemsAlone, joinsGroupCommit, type StepCounts } from "./steps.ts";

export class MalformedWebhookError extends Error {}

export interface IngestDeps {
  db: Db;
  outbox: Outbox;
  logger: Logger;
  directory: AccountDirectory;
  /** Told about every item set aside, for the metric. */
  onQuarantined?: (count: number) => void;
  /**
   * Told, once a payload is applied (not a duplicate), how many seconds before now Meta stamped its oldest status or
   * message: the ingestion lag (Meta's own delay, its redeliveries after our 503s, our queueing), for the metric.
   */
  onLag?: (seconds: number) => void;
  /** The template catalogue cache, dropped after commit for a WABA whose templates Meta changed (health events). */
  templates?: { forget(wabaId: string): Promise<void> } | undefined;
  /** Users this process learnt lately, told after each commit (plan.ts skips them for a while). */
  learnt?: LearntSightings | undefined;
}

/** After the commit that learnt them: the users named beside the payload's items (never an inbound sender's). */
function rememberLearnt(deps: IngestDeps, plans: readonly Plan[]): void {
  if (!deps.learnt) return;
  deps.learnt.remember(plans.flatMap((plan) => plan.sightings.filter((s) => s.keyed === false).map(sightingId)));
}

export interface IngestResult {
  statuses: number;
  messages: number;
  /** Changes of phone number or of BSUID applied to contacts. */
  identityChanges: number;
  /** Account and number health events stored. */
  accountEvents: number;
  /** Conversation Routing's handover notifications read (`messaging_handovers`). */
  handovers: number;
  /** Template notices stored (one per notice and account; a notice stored before is not counted). */
  notices: number;
  /** Marketing preference changes (user_preferences stop/resume) that changed the account's suppression list. */
  preferences: number;
  deliveries: number;
  quarantined: number;
  /** The same payload was stored and applied before (Meta redelivers): nothing was done. */
  duplicate: boolean;
}

/**
 * Apply one (signature-checked) provider webhook. Fast path: one transaction stores the raw payload (deduplicated
 * by its hash), applies every item in the steps' order (steps.ts: users, identity changes, statuses, inbound
 * messages, template notices and marketing preferences, which create no outbox rows, and health events) and inserts
 * the outbox rows, committed before Meta gets its 200. When an item makes that transaction fail (bad data, not an outage), the raw payload is
 * committed first and each item is applied in its own transaction; the ones that still fail are quarantined on the
 * stored event, so one bad item never blocks the rest nor makes Meta redeliver the payload for days. A database
 * outage throws: the route answers 503 and Meta retries.
 */
export async function ingestProviderWebhook(deps: IngestDeps, rawBody: string): Promise<IngestResult> {
  const receivedAt = new Date();
  const plan = await planItems(deps, parseWebhookBody(rawBody), receivedAt);
  return ingestPlanned(deps, rawBody, payloadHashOf(rawBody), plan, receivedAt);
}

/** Meta's timestamps are Unix seconds as digits; anything else says nothing about the lag. */
function unixSeconds(timestamp: string | undefined): number | null {
  return timestamp !== undefined && /^\d{1,11}$/.test(timestamp) ? Number(timestamp) : null;
}

/** The ingestion lag of an applied payload: now less Meta's timestamp of its oldest status or message. */
function tellLag(deps: IngestDeps, plan: Plan): void {
  if (!deps.onLag) return;
  const stamps = [
    ...plan.statuses.map((status) => unixSeconds(status.timestamp)),
    ...plan.inbound.map((item) => unixSeconds(item.inbound.message.timestamp)),
  ].filter((seconds): seconds is number => seconds !== null);
  if (stamps.length === 0) return;
  deps.onLag(Math.max(0, Date.now() / 1000 - Math.min(...stamps)));
}

function parseWebhookBody(rawBody: string): object {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    throw new MalformedWebhookError("corpo não é JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new MalformedWebhookError("corpo não é um objeto JSON");
  return parsed;
}

function payloadHashOf(rawBody: string): string {
  return createHash("sha256").update(rawBody).digest("hex");
}

/** One payload, planned: its own transaction (and its item-by-item fallback). */
async function ingestPlanned(
  deps: IngestDeps,
  rawBody: string,
  payloadHash: string,
  plan: Plan,
  receivedAt: Date,
): Promise<IngestResult> {
  const result: IngestResult = {
    statuses: plan.statuses.length,
    messages: plan.inbound.length,
    identityChanges: plan.identityChanges.length,
    accountEvents: plan.accountEvents.length,
    handovers: plan.handovers.length,
    notices: 0,
    preferences: 0,
    deliveries: 0,
    quarantined: plan.quarantined.length,
    duplicate: false,
  };

  let ids: CommittedDelivery[] | null;
  try {
    ids = await inTransaction(deps.db.sql, async (client) => {
      const eventId = await storeEvent(client, rawBody, payloadHash, plan.quarantined, { processed: true });
      if (eventId === null) return null;
      const applied = await applyTogether(client, plan, receivedAt);
      Object.assign(result, applied.counts);
      const deliveries = applied.deliveries.map((d) => d.delivery);
      return insertDeliveries(client, deliveries, receivedAt);
    });
    if (ids !== null) rememberLearnt(deps, [plan]);
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw error;
    deps.logger.warn("provider webhook item failed; applying its items one by one", {
      error: (error as Error).message,
    });
    ids = await ingestItemByItem(deps, rawBody, payloadHash, plan, receivedAt, result);
  }
  if (ids === null) {
    // Stored before: applied already, or left half-way by an outage (then finish it now).
    const pending = await unprocessedEvent(deps.db.sql, payloadHash);
    if (pending === null) return { ...result, duplicate: true };
    ids = await ingestItemByItem(deps, rawBody, payloadHash, plan, receivedAt, result);
  }
  tellLag(deps, plan);
  if (result.quarantined > 0) {
    deps.onQuarantined?.(result.quarantined);
    deps.logger.warn("provider webhook items quarantined", {
      count: result.quarantined,
      items: plan.quarantined.slice(0, 10),
    });
  }
  result.deliveries = ids.length;
  await deps.outbox.dispatch(ids);
  // After commit, so the next read of the catalogue (a send's, the panel's) asks Meta and finds the change.
  for (const wabaId of changedTemplateCatalogues(plan.accountEvents)) await deps.templates?.forget(wabaId);
  return result;
}

/**
 * The quarantine as jsonb accepts it: a path or reason quoting Meta's bytes may hold U+0000 or a lone surrogate
 * (the very reason the item was set aside), which would make PostgreSQL refuse the whole payload's record.
 */
function storableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === "string" ? replaceUnstorable(item, "\ufffd") : item,
  );
}

/** Insert the raw payload once; null when a payload with the same bytes is stored already. */
async function storeEvent(
  sql: Sql,
  rawBody: string,
  payloadHash: string,
  quarantined: QuarantinedItem[],
  options: { processed: boolean },
): Promise<string | null> {
  const { rows } = await sql.query<{ id: string }>({
    name: "store-provider-event",
    text: `INSERT INTO provider_events (body, payload_hash, processed_at, quarantined)
      VALUES ($1, $2, CASE WHEN $3::boolean THEN now() END, $4::jsonb)
      ON CONFLICT (payload_hash) DO NOTHING
      RETURNING id::text`,
    values: [rawBody, payloadHash, options.processed, quarantined.length > 0 ? storableJson(quarantined) : null],
  });
  return rows[0]?.id ?? null;
}

async function unprocessedEvent(sql: Sql, payloadHash: string): Promise<string | null> {
  const { rows } = await sql.query<{ id: string }>({
    name: "unprocessed-provider-event",
    text: `SELECT id::text FROM provider_events WHERE payload_hash = $1 AND processed_at IS NULL`,
    values: [payloadHash],
  });
  return rows[0]?.id ?? null;
}

/**
 * The slow path: the raw payload is committed first, then every item is applied in its own transaction (applying
 * is idempotent, so items applied by an earlier, interrupted run are no-ops). Items that fail are quarantined.
 */
async function ingestItemByItem(
  deps: IngestDeps,
  rawBody: string,
  payloadHash: string,
  plan: Plan,
  receivedAt: Date,
  result: IngestResult,
): Promise<CommittedDelivery[]> {
  const pool = deps.db.sql;
  const eventId =
    (await storeEvent(pool, rawBody, payloadHash, plan.quarantined, { processed: false })) ??
    (await unprocessedEvent(pool, payloadHash));
  if (eventId === null) return []; // applied meanwhile by a concurrent delivery of the same payload
  const ids: CommittedDelivery[] = [];
  const counts: StepCounts = { notices: 0, preferences: 0 };
  for (const item of itemsAlone(plan, receivedAt)) {
    try {
      const committed = await inTransaction(pool, async (client) => {
        const applied = await item.apply(client);
        if (item.counts) counts[item.counts] += applied.count ?? 0;
        return insertDeliveries(
          client,
          applied.deliveries.map((d) => d.delivery),
          receivedAt,
        );
      });
      ids.push(...committed);
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error;
      plan.quarantined.push({ path: item.path, reason: (error as Error).message.slice(0, 500) });
    }
  }
  Object.assign(result, counts);
  result.quarantined = plan.quarantined.length;
  await pool.query({
    name: "finish-provider-event",
    text: `UPDATE provider_events SET processed_at = now(), quarantined = $2::jsonb WHERE id = $1::bigint`,
    values: [eventId, plan.quarantined.length > 0 ? JSON.stringify(plan.quarantined) : null],
  });
  return ids;
}

/** What one payload of a batch came to: its own result, or the error its request answers with. */
export type BatchIngestOutcome = CallOutcome<IngestResult>;

interface BatchMember {
  index: number;
  rawBody: string;
  payloadHash: string;
  plan: Plan;
}

/**
 * Apply several (signature-checked) provider webhooks that arrived together, each answered as if alone (group
 * commit). The status webhooks among them are stored and applied in ONE transaction: one insert of their raw
 * payloads, one lock statement, one `applyStatuses` per position, one insert of the outbox rows, one commit and one
 * `addBulk`, instead of all of it per payload. Statuses of one message keep the batch's order (its arrival order).
 * The other payloads, a payload stored before (Meta redelivered it) and a second copy of one in the same batch go
 * through `ingestProviderWebhook`'s path, one each. When the shared transaction fails on bad data, every one of its
 * payloads is applied again on its own, so one bad item never affects the others; a database outage fails all of
 * them (each request answers 503 and Meta retries).
 */
export function ingestProviderWebhooks(
  deps: IngestDeps,
  rawBodies: readonly string[],
  parents: readonly (TraceContext | null)[] = [],
): Promise<BatchIngestOutcome[]> {
  // The batch is no tenant's: a trace of its own, whatever context the run started in. Each payload is a span in the
  // trace of the request that brought it (`parents`; absent: a trace of its own), linked to the batch, and what it
  // does (and the deliveries it makes) is in that span: tenants never share a trace id through a batch.
  return withSpan(
    "ingest provider webhooks",
    { parent: null, attributes: { "gw.batch.payloads": rawBodies.length } },
    async (batch) => {
      const spans = rawBodies.map((_, index) =>
        startSpan("ingest provider webhook", { parent: parents[index] ?? null, links: [batch.context] }),
      );
      try {
        const outcomes = await ingestBatch(deps, rawBodies, spans);
        for (const [index, outcome] of outcomes.entries()) if (!outcome.ok) spans[index]?.fail(outcome.error);
        return outcomes;
      } finally {
        for (const span of spans) span.end();
      }
    },
  );
}

async function ingestBatch(
  deps: IngestDeps,
  rawBodies: readonly string[],
  spans: readonly TraceSpan[],
): Promise<BatchIngestOutcome[]> {
  const inPayloadSpan = <T>(index: number, fn: () => T): T => {
    const span = spans[index];
    return span ? runInSpan(span, fn) : fn();
  };
  const receivedAt = new Date();
  const outcomes: (BatchIngestOutcome | undefined)[] = rawBodies.map(() => undefined);
  const members: BatchMember[] = [];
  const alone: BatchMember[] = [];
  const hashes = new Set<string>();
  for (const [index, rawBody] of rawBodies.entries()) {
    try {
      const plan = await inPayloadSpan(index, () => planItems(deps, parseWebhookBody(rawBody), receivedAt));
      const payloadHash = payloadHashOf(rawBody);
      if (joinsGroupCommit(plan) && !hashes.has(payloadHash)) {
        hashes.add(payloadHash);
        members.push({ index, rawBody, payloadHash, plan });
      } else alone.push({ index, rawBody, payloadHash, plan });
    } catch (error) {
      outcomes[index] = { ok: false, error };
    }
  }
  const settle = async (index: number, run: () => Promise<IngestResult>) => {
    try {
      outcomes[index] = { ok: true, value: await inPayloadSpan(index, run) };
    } catch (error) {
      outcomes[index] = { ok: false, error };
    }
  };
  // Payloads of their own run beside the shared transaction, as concurrent requests would.
  const others = Promise.all(
    alone
      .filter((item) => !hashes.has(item.payloadHash))
      .map((item) =>
        settle(item.index, () => ingestPlanned(deps, item.rawBody, item.payloadHash, item.plan, receivedAt)),
      ),
  );
  let later: BatchMember[] = [];
  try {
    const shared = await commitTogether(deps, members, receivedAt, (index) => spans[index]?.traceparent ?? null);
    rememberLearnt(
      deps,
      shared.applied.map((member) => member.plan),
    );
    later = shared.storedBefore;
    for (const [position, member] of shared.applied.entries()) {
      tellLag(deps, member.plan);
      outcomes[member.index] = {
        ok: true,
        value: { ...emptyResult(member.plan), deliveries: shared.deliveriesPerMember[position] ?? 0 },
      };
    }
    await deps.outbox.dispatch(shared.committed);
  } catch (error) {
    if (isDatabaseUnavailable(error)) {
      for (const member of members) outcomes[member.index] = { ok: false, error };
    } else {
      deps.logger.warn("provider webhooks failed together; applying each on its own", {
        payloads: members.length,
        error: (error as Error).message,
      });
      later = members;
    }
  }
  await others;
  // After the shared commit: a copy of a payload of this batch finds it stored (a duplicate, as it would alone).
  const copies = alone.filter((item) => hashes.has(item.payloadHash));
  for (const item of [...later, ...copies])
    await settle(item.index, () => ingestPlanned(deps, item.rawBody, item.payloadHash, item.plan, receivedAt));
  return outcomes.map((outcome) => outcome ?? { ok: false, error: new Error("payload not ingested") });
}

function emptyResult(plan: Plan): IngestResult {
  return {
    statuses: plan.statuses.length,
    messages: 0,
    identityChanges: 0,
    accountEvents: 0,
    handovers: 0,
    notices: 0,
    preferences: 0,
    deliveries: 0,
    quarantined: 0,
    duplicate: false,
  };
}

/** The shared transaction of `ingestProviderWebhooks`; `traceOf` is the context of a payload (by its index). */
async function commitTogether(
  deps: IngestDeps,
  members: readonly BatchMember[],
  receivedAt: Date,
  traceOf: (index: number) => string | null,
): Promise<{
  applied: BatchMember[];
  deliveriesPerMember: number[];
  committed: CommittedDelivery[];
  storedBefore: BatchMember[];
}> {
  if (members.length === 0) return { applied: [], deliveriesPerMember: [], committed: [], storedBefore: [] };
  return inTransaction(deps.db.sql, async (client) => {
    const { rows } = await client.query<{ payload_hash: string }>({
      name: "store-provider-events",
      text: `INSERT INTO provider_events (body, payload_hash, processed_at)
        SELECT t.body, t.payload_hash, now() FROM unnest($1::text[], $2::text[]) AS t(body, payload_hash)
        ON CONFLICT (payload_hash) DO NOTHING
        RETURNING payload_hash`,
      values: [members.map((m) => m.rawBody), members.map((m) => m.payloadHash)],
    });
    const stored = new Set(rows.map((row) => row.payload_hash));
    const applied = members.filter((m) => stored.has(m.payloadHash));
    const storedBefore = members.filter((m) => !stored.has(m.payloadHash));
    // The payloads' items as one plan (only statuses and the users they name: joinsGroupCommit), each user once.
    const sightings = new Map<string, ContactSighting>();
    for (const sighting of applied.flatMap((m) => m.plan.sightings))
      if (!sightings.has(sightingId(sighting))) sightings.set(sightingId(sighting), sighting);
    const merged: Plan = {
      ...emptyPlan(),
      statuses: applied.flatMap((m) => m.plan.statuses),
      sightings: [...sightings.values()],
    };
    const memberOfStatus = applied.flatMap((m, position) => m.plan.statuses.map(() => position));
    const deliveriesPerMember = applied.map(() => 0);
    const { deliveries } = await applyTogether(client, merged, receivedAt);
    for (const { item } of deliveries) {
      // Every delivery here comes from a status; a campaign send it proved counts for the first status of its message.
      const position = memberOfStatus[item] ?? 0;
      deliveriesPerMember[position] = (deliveriesPerMember[position] ?? 0) + 1;
    }
    // Each delivery joins its message's send, else the payload its status came from: never another payload's trace.
    const pending = deliveries.map(({ item, delivery }) => {
      const position = memberOfStatus[item];
      const member = position === undefined ? undefined : applied[position];
      return { ...delivery, traceContext: delivery.traceContext ?? (member ? traceOf(member.index) : null) };
    });
    const committed = await insertDeliveries(client, pending, receivedAt);
    return { applied, deliveriesPerMember, committed, storedBefore };
  });
}

export interface IngestBatcher {
  /** Ingest one payload, possibly with others that arrived meanwhile; resolves with its own result. */
  ingest(rawBody: string): Promise<IngestResult>;
}

export interface IngestBatcherOptions {
  /** Most payloads one shared transaction takes; 1 turns batching off (every payload alone, as before). */
  maxPayloads: number;
  /** Most batches in flight at once; the payloads that arrive meanwhile wait and form the next batch. */
  maxInFlight: number;
  /** Told the size of each batch started (a metric). */
  onBatch?: (payloads: number) => void;
}

/**
 * Group commit of webhooks (batching/group-calls.ts): a payload that finds fewer than `maxInFlight` batches running
 * is ingested at once, alone, on the single path; the ones that arrive meanwhile leave together through
 * `ingestProviderWebhooks`, so under load each commit (and its fsync) serves many requests.
 */
export function createIngestBatcher(deps: IngestDeps, options: IngestBatcherOptions): IngestBatcher {
  if (options.maxPayloads <= 1) return { ingest: (rawBody) => ingestProviderWebhook(deps, rawBody) };
  // Each payload keeps the context of the request that brought it: a run starts in whatever context freed its slot
  // (another request's, another tenant's), so it never relies on the one it runs in.
  const grouped = groupCalls<{ rawBody: string; parent: TraceContext | null }, IngestResult>(
    async (arrivals) => {
      const [only] = arrivals;
      if (arrivals.length > 1 || only === undefined)
        return ingestProviderWebhooks(
          deps,
          arrivals.map((arrival) => arrival.rawBody),
          arrivals.map((arrival) => arrival.parent),
        );
      return [
        await withSpan("ingest provider webhook", { parent: only.parent }, () =>
          ingestProviderWebhook(deps, only.rawBody),
        ).then(
          (value): BatchIngestOutcome => ({ ok: true, value }),
          (error: unknown): BatchIngestOutcome => ({ ok: false, error }),
        ),
      ];
    },
    { maxBatch: options.maxPayloads, maxInFlight: options.maxInFlight, onBatch: options.onBatch },
  );
  return { ingest: (rawBody) => grouped.call({ rawBody, parent: currentTraceContext() }) };
}
