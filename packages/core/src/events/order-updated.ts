import { isMessageStatus } from "@gw/contracts";
import type { Sql } from "@gw/db";
import { orderOrderingKey } from "../deliveries/attempt/ordering.ts";
import { subscribedDeliveries, type PendingDelivery } from "../deliveries/attempt/outbox.ts";

/**
 * `order.updated` (issue 28, design-28 §5.1), an opt-in event: a Pix order's status pair and the message of the order
 * that changed it. It fires when an accepted order_status message moved the order (`status_sent`, in the accepted
 * send's transaction) and on every applied status of one of the order's messages (`message_status`, in the status
 * round); never on creation. Keyed per order (`o:<id>`) for integrations that deliver in order.
 */

interface OrderMessageRow {
  order_id: string;
  account_id: string;
  reference_id: string;
  phone_number_id: string;
  recipient: string;
  order_status: string;
  payment_status: string;
  payment_timestamp: string | null;
  description: string | null;
  updated_at: Date;
  wamid: string;
  kind: string;
  message_order_status: string;
  message_payment_status: string | null;
  message_status: string | null;
  error_code: number | null;
  error_message: string | null;
  error_reason: string | null;
}

// The order and its message as they are now (a later statement of the transaction that moved or applied them).
const ORDER_MESSAGES = `
SELECT o.id::text AS order_id, o.account_id, o.reference_id, o.phone_number_id, o.recipient, o.order_status,
  o.payment_status, o.payment_timestamp::text, o.description, o.updated_at, om.wamid, om.kind,
  om.order_status AS message_order_status, om.payment_status AS message_payment_status, m.status AS message_status,
  m.error_code, m.error_message, m.error_reason
FROM order_messages om JOIN orders o ON o.id = om.order_id LEFT JOIN messages m ON m.wamid = om.wamid
WHERE om.wamid = ANY($1::text[]) AND om.state = 'accepted'`;

function dataOf(row: OrderMessageRow, trigger: "status_sent" | "message_status"): object {
  const messageStatus = isMessageStatus(row.message_status) ? row.message_status : null;
  return {
    reference_id: row.reference_id,
    phone_number_id: row.phone_number_id,
    to: row.recipient,
    order_status: row.order_status,
    payment_status: row.payment_status,
    payment_timestamp: row.payment_timestamp === null ? null : Number(row.payment_timestamp),
    description: row.description,
    trigger,
    updated_at: row.updated_at.toISOString(),
    message: {
      message_id: row.wamid,
      kind: row.kind,
      order_status: row.message_order_status,
      payment_status: row.message_payment_status,
      message_status: messageStatus,
      // Meta always sends errors[] with a failure; 0 stands for "no provider code" should it ever not (message.status).
      error:
        messageStatus === "failed"
          ? { code: row.error_code ?? 0, message: row.error_message ?? "", reason: row.error_reason ?? "" }
          : null,
    },
  };
}

async function orderMessages(sql: Sql, wamids: readonly string[]): Promise<Map<string, OrderMessageRow>> {
  const { rows } = await sql.query<OrderMessageRow>({
    name: "order-updated-messages",
    text: ORDER_MESSAGES,
    values: [wamids],
  });
  return new Map(rows.map((row) => [row.wamid, row]));
}

/** `status_sent`: the accepted order_status message `wamid` moved its order; one delivery per subscribed integration. */
export async function orderStatusSentDeliveries(sql: Sql, wamid: string): Promise<PendingDelivery[]> {
  const row = (await orderMessages(sql, [wamid])).get(wamid);
  if (!row) return [];
  const deliveries = await subscribedDeliveries(sql, row.account_id, "order.updated", dataOf(row, "status_sent"));
  return deliveries.map((delivery) => ({ ...delivery, orderingKey: orderOrderingKey(row.order_id) }));
}

/** A (status applied to an order's message, subscribed integration) pair of a status round, its delivery id drawn. */
export interface OrderStatusRow {
  wamid: string;
  account_id: string;
  integration_id: string;
  delivery_id: string;
}

/** `message_status`: the deliveries of the round's order rows, each built from its order as it is now. */
export async function orderMessageStatusDeliveries(
  sql: Sql,
  rows: readonly OrderStatusRow[],
): Promise<(PendingDelivery | null)[]> {
  if (rows.length === 0) return [];
  const orders = await orderMessages(sql, [...new Set(rows.map((row) => row.wamid))]);
  return rows.map((row) => {
    const order = orders.get(row.wamid);
    if (!order) return null;
    return {
      id: row.delivery_id,
      accountId: row.account_id,
      integrationId: row.integration_id,
      event: "order.updated",
      orderingKey: orderOrderingKey(order.order_id),
      data: dataOf(order, "message_status"),
    };
  });
}
