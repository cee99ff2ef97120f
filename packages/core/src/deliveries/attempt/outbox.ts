import type { Sql } from "@gw/db";
import { enqueueFirstAttempts, MAX_FIRST_ATTEMPTS_PER_JOB, type WebhookQueue } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import type { WebhookEventName } from "@gw/contracts";
import { currentTraceparent } from "@gw/tracing";

/**
 * The transactional outbox: in the SAME transaction that applies an event, one delivery row per active
 * integration subscribed to it, holding the envelope of spec 2.7 serialized once (the exact bytes that are
 * signed and sent on every attempt). Jobs are queued after commit; the dispatcher's reconciler queues any row
 * whose job never made it to Redis.
 */
export interface PendingDelivery {
  /** Drawn from the deliveries sequence before the insert: `delivery_id` is part of the body. */
  id: string;
  accountId: string;
  integrationId: string;
  event: WebhookEventName;
  data: object;
  /**
   * What this event is ordered with when its integration delivers in order (attempt/ordering.ts): the message
   * for `message.status`, the contact for `message.received`; absent for account-level events.
   */
  orderingKey?: string;
  /**
   * The W3C context the delivery joins: its message's send's (messages.trace_context, read by the status round).
   * Absent or null: the context current when the delivery is inserted (the provider webhook's).
   */
  traceContext?: string | null;
}

/** The webhook envelope of spec 2.7; `occurred_at` is when the event entered the queue. */
export function deliveryBody(delivery: PendingDelivery, occurredAt: Date): string {
  return JSON.stringify({
    event: delivery.event,
    occurred_at: occurredAt.toISOString(),
    delivery_id: delivery.id,
    data: delivery.data,
  });
}

/** One pending delivery per active integration of the account subscribed to `event`, ids drawn in one round trip. */
export async function subscribedDeliveries(
  sql: Sql,
  accountId: string,
  event: WebhookEventName,
  data: object,
): Promise<PendingDelivery[]> {
  const { rows } = await sql.query<{ integration_id: string; id: string }>({
    name: "subscribed-integrations",
    text: `SELECT id AS integration_id, nextval(pg_get_serial_sequence('deliveries', 'id'))::text AS id
      FROM (SELECT id FROM integrations WHERE account_id = $1::uuid AND active AND $2 = ANY(events) ORDER BY created_at, id) AS subscribed`,
    values: [accountId, event],
  });
  return rows.map((row) => ({ id: row.id, accountId, integrationId: row.integration_id, event, data }));
}

/** A delivery row committed by the outbox, to queue after commit. */
export interface CommittedDelivery {
  deliveryId: string;
  integrationId: string;
  /** The W3C context its attempts are children of (deliveries.trace_context), carried by its jobs. */
  traceparent?: string | null;
  /**
   * The first delivery of the job that carries this one's first attempt with the others of its commit for the same
   * integration (deliveries.batch_id); null: a job of its own.
   */
  batchId: string | null;
}

/**
 * Each delivery's batch (deliveries.batch_id): the deliveries of one integration inserted together, in order, by jobs
 * of at most MAX_FIRST_ATTEMPTS_PER_JOB, each named by its first delivery; a delivery alone in its batch has none.
 */
function batchIds(deliveries: readonly PendingDelivery[]): (string | null)[] {
  const byIntegration = new Map<string, number[]>();
  for (const [index, d] of deliveries.entries()) {
    const members = byIntegration.get(d.integrationId);
    if (members) members.push(index);
    else byIntegration.set(d.integrationId, [index]);
  }
  const ids: (string | null)[] = deliveries.map(() => null);
  for (const members of byIntegration.values()) {
    for (let start = 0; start < members.length; start += MAX_FIRST_ATTEMPTS_PER_JOB) {
      const chunk = members.slice(start, start + MAX_FIRST_ATTEMPTS_PER_JOB);
      if (chunk.length < 2) continue;
      const first = deliveries[chunk[0] ?? 0]?.id ?? null;
      for (const index of chunk) ids[index] = first;
    }
  }
  return ids;
}

/**
 * Insert the delivery rows (one statement for any number of them). Returns what to queue after commit. Each row keeps
 * the trace context it joins (`traceContext`, else the current one), so its attempts join that trace.
 */
export async function insertDeliveries(
  sql: Sql,
  deliveries: readonly PendingDelivery[],
  occurredAt = new Date(),
): Promise<CommittedDelivery[]> {
  if (deliveries.length === 0) return [];
  const current = currentTraceparent();
  const batches = batchIds(deliveries);
  const { rows } = await sql.query<{ id: string; trace_context: string | null }>({
    name: "insert-deliveries",
    // The ordering key is kept only for an integration that delivers in order (its gate's index stays small).
    text: `INSERT INTO deliveries (id, account_id, integration_id, event, status, body, occurred_at, next_attempt_at, ordering_key,
        trace_context, batch_id)
      SELECT t.id, t.account_id, t.integration_id, t.event, 'pending', t.body, $6, $6,
        CASE WHEN i.deliver_in_order THEN t.ordering_key END, COALESCE(t.trace_context, $9), t.batch_id
      FROM unnest($1::bigint[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $7::text[], $8::text[], $10::bigint[])
        AS t(id, account_id, integration_id, event, body, ordering_key, trace_context, batch_id)
      JOIN integrations i ON i.id = t.integration_id
      RETURNING id::text, trace_context`,
    values: [
      deliveries.map((d) => d.id),
      deliveries.map((d) => d.accountId),
      deliveries.map((d) => d.integrationId),
      deliveries.map((d) => d.event),
      deliveries.map((d) => deliveryBody(d, occurredAt)),
      occurredAt,
      deliveries.map((d) => d.orderingKey ?? null),
      deliveries.map((d) => d.traceContext ?? null),
      current,
      batches,
    ],
  });
  const traces = new Map(rows.map((row) => [row.id, row.trace_context]));
  return deliveries.map((d, index) => ({
    deliveryId: d.id,
    integrationId: d.integrationId,
    traceparent: traces.get(d.id) ?? null,
    batchId: batches[index] ?? null,
  }));
}

export interface Outbox {
  /** After commit: queue attempt 1 of each delivery. A failure is logged; the reconciler catches up. */
  dispatch(deliveries: readonly CommittedDelivery[]): Promise<void>;
}

export function createOutbox(queue: WebhookQueue, logger: Logger): Outbox {
  return {
    async dispatch(deliveries) {
      if (deliveries.length === 0) return;
      try {
        await enqueueFirstAttempts(queue, deliveries);
      } catch (error) {
        logger.warn("deliveries committed but not queued; the sweep will queue them", {
          count: deliveries.length,
          error: (error as Error).message,
        });
      }
    },
  };
}
