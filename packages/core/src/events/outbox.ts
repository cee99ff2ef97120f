import type { DbTx } from "@gw/db";
import type { Logger } from "@gw/logger";
import { enqueueDeliveryAttempt, type WebhookQueue } from "@gw/jobs";
import type { WebhookEvent } from "../accounts/accounts.ts";

/**
 * The transactional outbox: in the SAME transaction that applies an event, one delivery row per active
 * integration subscribed to it, holding the envelope of spec 2.7 serialized once (the exact bytes that
 * are signed and sent on every attempt). Jobs are queued after commit; the dispatcher's reconciler
 * queues any row whose job never made it to Redis.
 */
export async function createDeliveries(
  tx: DbTx,
  accountId: string,
  event: WebhookEvent,
  data: object,
): Promise<bigint[]> {
  // One round trip for the subscribed integrations and their delivery ids: `delivery_id` is part of the body,
  // and the body is written once. (This runs for every provider webhook, so each query counts.)
  const integrations = await tx.$queryRaw<{ integration_id: string; id: bigint }[]>`
    SELECT id AS integration_id, nextval(pg_get_serial_sequence('deliveries', 'id')) AS id
    FROM (SELECT id FROM integrations WHERE account_id = ${accountId}::uuid AND active AND ${event} = ANY(events) ORDER BY created_at, id) AS subscribed`;
  if (integrations.length === 0) return [];
  const occurredAt = new Date();
  const rows = integrations.map(({ integration_id, id }) => {
    const body = JSON.stringify({ event, occurred_at: occurredAt.toISOString(), delivery_id: String(id), data });
    return {
      id,
      accountId,
      integrationId: integration_id,
      event,
      status: "pending",
      body,
      occurredAt,
      nextAttemptAt: occurredAt,
    };
  });
  await tx.delivery.createMany({ data: rows });
  return rows.map((row) => row.id);
}

export interface Outbox {
  /** After commit: queue attempt 1 of each delivery. A failure is logged; the reconciler catches up. */
  dispatch(ids: bigint[]): Promise<void>;
}

export function createOutbox(queue: WebhookQueue, logger: Logger): Outbox {
  return {
    async dispatch(ids) {
      const results = await Promise.allSettled(ids.map((id) => enqueueDeliveryAttempt(queue, id, 1)));
      const failed = results.filter((r) => r.status === "rejected").length;
      if (failed > 0) logger.warn("deliveries committed but not queued; the reconciler will queue them", { failed });
    },
  };
}
