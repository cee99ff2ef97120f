import { isMessageStatus, type MessageStatus } from "@gw/contracts";
import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { OrderStatusValue, PaymentStatusValue } from "../messages/order-records.ts";

// Reading orders (design-28 §3): only `open` ones exist for readers (their order_details message was recorded
// accepted); a claimed or unconfirmed reference, another account's and an unknown one all look alike (404).

export type PaymentMethod = "pix" | "payment_link" | "boleto";
export type OrderMessageStatus = MessageStatus;

export interface OrderItemView {
  name: string;
  /** Unit amount, cents. */
  amount: number;
  quantity: number;
  retailerId: string | null;
}

export interface OrderHistoryEntryView {
  messageId: string;
  kind: "order_details" | "order_status";
  orderStatus: OrderStatusValue;
  /** Null: the message carried no payment object. */
  paymentStatus: PaymentStatusValue | null;
  paymentTimestamp: number | null;
  description: string | null;
  sentAt: Date;
  origin: "api" | "panel";
  /** What carried it: the Pix send's template (order_details), an order-status template, or the interactive message. */
  form: "interactive" | "template";
  /** That template's name; null for the interactive message. */
  template: string | null;
  /** Meta's last status of the message; null until Meta reports one. */
  messageStatus: OrderMessageStatus | null;
  error: { code: number | null; message: string | null; reason: string | null } | null;
}

export interface OrderSummaryView {
  id: number;
  referenceId: string;
  phoneNumberId: string;
  /** As the send named the recipient: phone digits or a BSUID. */
  to: string;
  orderStatus: OrderStatusValue;
  paymentStatus: PaymentStatusValue;
  paymentTimestamp: number | null;
  description: string | null;
  goodsType: string;
  currency: "BRL";
  template: string;
  clientRef: string | null;
  items: OrderItemView[];
  subtotal: number;
  tax: number;
  totalAmount: number;
  paymentMethods: PaymentMethod[];
  /** The order_details message. */
  messageId: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface OrderView extends OrderSummaryView {
  /** Oldest first: the order_details message, then each accepted order_status message. */
  history: OrderHistoryEntryView[];
}

interface OrderRow {
  id: string;
  reference_id: string;
  phone_number_id: string;
  recipient: string;
  order_status: OrderStatusValue;
  payment_status: PaymentStatusValue;
  payment_timestamp: string | null;
  description: string | null;
  goods_type: string;
  template_name: string;
  client_ref: string | null;
  items: { name: string; amount: number; quantity: number; retailer_id?: string | null }[];
  subtotal: string;
  tax: string;
  total_amount: string;
  payment_settings: { type: string }[];
  message_wamid: string;
  created_at: Date;
  updated_at: Date;
}

const ORDER_COLUMNS = `o.id::text, o.reference_id, o.phone_number_id, o.recipient, o.order_status, o.payment_status,
  o.payment_timestamp::text, o.description, o.goods_type, o.template_name, o.client_ref, o.items, o.subtotal::text,
  o.tax::text, o.total_amount::text, o.payment_settings, o.message_wamid, o.created_at, o.updated_at`;

const METHOD_OF: Record<string, PaymentMethod> = {
  pix_dynamic_code: "pix",
  payment_link: "payment_link",
  boleto: "boleto",
};

function summaryOf(row: OrderRow): OrderSummaryView {
  return {
    id: Number(row.id),
    referenceId: row.reference_id,
    phoneNumberId: row.phone_number_id,
    to: row.recipient,
    orderStatus: row.order_status,
    paymentStatus: row.payment_status,
    paymentTimestamp: row.payment_timestamp === null ? null : Number(row.payment_timestamp),
    description: row.description,
    goodsType: row.goods_type,
    currency: "BRL",
    template: row.template_name,
    clientRef: row.client_ref,
    items: row.items.map((item) => ({
      name: item.name,
      amount: item.amount,
      quantity: item.quantity,
      retailerId: item.retailer_id ?? null,
    })),
    subtotal: Number(row.subtotal),
    tax: Number(row.tax),
    totalAmount: Number(row.total_amount),
    paymentMethods: row.payment_settings.flatMap((s) =>
      METHOD_OF[s.type] ? [METHOD_OF[s.type] as PaymentMethod] : [],
    ),
    messageId: row.message_wamid,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** 404 `not_found` naming the order. */
export function orderNotFound(referenceId: string): ApiError {
  return new ApiError("not_found", { message: `O pedido ${referenceId} não existe nesta conta.` });
}

/** The open order `(accountId, referenceId)` with its id, as the status update needs it; 404 otherwise. */
export async function findOpenOrder(
  deps: { db: Db },
  input: { accountId: string; referenceId: string },
): Promise<OrderSummaryView> {
  const { rows } = await deps.db.sql.query<OrderRow>({
    name: "order-find-open",
    text: `SELECT ${ORDER_COLUMNS} FROM orders o WHERE o.account_id = $1::uuid AND o.reference_id = $2 AND o.state = 'open'`,
    values: [input.accountId, input.referenceId],
  });
  const row = rows[0];
  if (!row) throw orderNotFound(input.referenceId);
  return summaryOf(row);
}

interface HistoryRow {
  wamid: string;
  kind: "order_details" | "order_status";
  order_status: OrderStatusValue;
  payment_status: PaymentStatusValue | null;
  payment_timestamp: string | null;
  description: string | null;
  accepted_at: Date;
  actor: string;
  template_name: string | null;
  message_status: string | null;
  error_code: number | null;
  error_message: string | null;
  error_reason: string | null;
}

/** GET /public/v1/orders/{reference_id}: the order and its history (throws 404 `not_found`). */
export async function getOrder(
  deps: { db: Db },
  input: { accountId: string; referenceId: string },
): Promise<OrderView> {
  const order = await findOpenOrder(deps, input);
  const { rows } = await deps.db.sql.query<HistoryRow>({
    name: "order-history",
    text: `SELECT h.wamid, h.kind, h.order_status, h.payment_status, h.payment_timestamp::text, h.description,
        h.accepted_at, h.actor, h.template_name, m.status AS message_status, m.error_code, m.error_message, m.error_reason
      FROM order_messages h LEFT JOIN messages m ON m.wamid = h.wamid
      WHERE h.order_id = $1::bigint AND h.state = 'accepted'
      ORDER BY h.id`,
    values: [order.id],
  });
  return {
    ...order,
    history: rows.map((row) => {
      // The order_details row went with the Pix send's template, the order's own.
      const template = row.kind === "order_details" ? order.template : row.template_name;
      return historyEntry(row, template);
    }),
  };
}

function historyEntry(row: HistoryRow, template: string | null): OrderHistoryEntryView {
  return {
    messageId: row.wamid,
    kind: row.kind,
    orderStatus: row.order_status,
    paymentStatus: row.payment_status,
    paymentTimestamp: row.payment_timestamp === null ? null : Number(row.payment_timestamp),
    description: row.description,
    sentAt: row.accepted_at,
    origin: row.actor.startsWith("panel:") ? "panel" : "api",
    form: template === null ? "interactive" : "template",
    template,
    messageStatus: isMessageStatus(row.message_status) ? row.message_status : null,
    error:
      row.message_status === "failed"
        ? { code: row.error_code, message: row.error_message, reason: row.error_reason }
        : null,
  };
}

export interface ListOrdersInput {
  accountId: string;
  status?: OrderStatusValue | null | undefined;
  paymentStatus?: PaymentStatusValue | null | undefined;
  limit: number;
  beforeId?: number | null | undefined;
}

/** GET /public/v1/orders: open orders newest first, a page at a time (`nextBeforeId`: the cursor of the next page). */
export async function listOrders(
  deps: { db: Db },
  input: ListOrdersInput,
): Promise<{ orders: OrderSummaryView[]; nextBeforeId: number | null }> {
  const { rows } = await deps.db.sql.query<OrderRow>({
    name: "order-list",
    text: `SELECT ${ORDER_COLUMNS} FROM orders o
      WHERE o.account_id = $1::uuid AND o.state = 'open'
        AND ($2::text IS NULL OR o.order_status = $2)
        AND ($3::text IS NULL OR o.payment_status = $3)
        AND ($4::bigint IS NULL OR o.id < $4)
      ORDER BY o.id DESC LIMIT $5`,
    values: [
      input.accountId,
      input.status ?? null,
      input.paymentStatus ?? null,
      input.beforeId ?? null,
      input.limit + 1,
    ],
  });
  const page = rows.slice(0, input.limit).map(summaryOf);
  const last = page.at(-1);
  return { orders: page, nextBeforeId: rows.length > input.limit && last ? last.id : null };
}
