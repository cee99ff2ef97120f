// TEMPORARY STAND-IN for `@gw/core/orders` (issue 28, package A), built to design-28 §11's interface so the Pedidos
// page can be written and tested before package A lands. On merge: delete this file and point orders-core.ts at
// `@gw/core/orders` (see that file). Nothing here is meant to survive the merge; the real service owns the SQL.
import type { Actor } from "@gw/core/audit";
import {
  listConversationMessages as listCoreConversationMessages,
  type ConversationMessageView as CoreConversationMessageView,
} from "@gw/core/conversations";
import { fingerprint } from "@gw/core/idempotency";
import type { SendDeps, SendOutcome } from "@gw/core/messages";
import { inTransaction, type Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import { MetaApiError, type GraphMessagePayload } from "@gw/meta";

export const ORDER_STATUSES = [
  "pending",
  "processing",
  "partially_shipped",
  "shipped",
  "completed",
  "canceled",
] as const;
export const PAYMENT_STATUSES = ["pending", "captured", "failed"] as const;
type OrderStatus = (typeof ORDER_STATUSES)[number];
type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export interface OrderSummaryView {
  id: number;
  reference_id: string;
  phone_number_id: string;
  to: string;
  order_status: OrderStatus;
  payment_status: PaymentStatus;
  payment_timestamp: number | null;
  description: string | null;
  goods_type: string;
  currency: "BRL";
  template: string;
  client_ref: string | null;
  items: { name: string; amount: number; quantity: number; retailer_id: string | null }[];
  subtotal: number;
  tax: number;
  total_amount: number;
  payment_methods: ("pix" | "payment_link" | "boleto")[];
  message_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface OrderView extends OrderSummaryView {
  history: {
    message_id: string;
    kind: "order_details" | "order_status";
    order_status: OrderStatus;
    payment_status: PaymentStatus | null;
    payment_timestamp: number | null;
    description: string | null;
    sent_at: string;
    origin: "api" | "panel";
    message_status: "sent" | "delivered" | "read" | "failed" | null;
    error: { code: number; message: string; reason: string } | null;
  }[];
}

export type ConversationMessageView = CoreConversationMessageView & {
  order: { reference_id: string; order_status: OrderStatus; payment_status: PaymentStatus } | null;
};

interface OrderRow {
  id: string;
  reference_id: string;
  phone_number_id: string;
  recipient: string;
  order_status: OrderStatus;
  payment_status: PaymentStatus;
  payment_timestamp: string | null;
  description: string | null;
  goods_type: string;
  template_name: string;
  client_ref: string | null;
  items: OrderSummaryView["items"];
  subtotal: string;
  tax: string;
  total_amount: string;
  payment_settings: { type: string }[];
  message_wamid: string | null;
  created_at: Date;
  updated_at: Date;
}

const METHODS: Record<string, OrderSummaryView["payment_methods"][number]> = {
  pix_dynamic_code: "pix",
  payment_link: "payment_link",
  boleto: "boleto",
};

function summary(row: OrderRow): OrderSummaryView {
  return {
    id: Number(row.id),
    reference_id: row.reference_id,
    phone_number_id: row.phone_number_id,
    to: row.recipient,
    order_status: row.order_status,
    payment_status: row.payment_status,
    payment_timestamp: row.payment_timestamp === null ? null : Number(row.payment_timestamp),
    description: row.description,
    goods_type: row.goods_type,
    currency: "BRL",
    template: row.template_name,
    client_ref: row.client_ref,
    items: row.items,
    subtotal: Number(row.subtotal),
    tax: Number(row.tax),
    total_amount: Number(row.total_amount),
    payment_methods: row.payment_settings.flatMap((setting) => METHODS[setting.type] ?? []),
    message_id: row.message_wamid,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export async function listOrders(
  deps: { db: Db },
  input: {
    accountId: string;
    status?: OrderStatus | undefined;
    paymentStatus?: PaymentStatus | undefined;
    limit: number;
    beforeId?: number | undefined;
  },
): Promise<{ orders: OrderSummaryView[]; nextBeforeId: number | null }> {
  const { rows } = await deps.db.sql.query<OrderRow>(
    `SELECT * FROM orders WHERE account_id = $1::uuid AND state = 'open'
       AND ($2::text IS NULL OR order_status = $2) AND ($3::text IS NULL OR payment_status = $3)
       AND ($4::bigint IS NULL OR id < $4) ORDER BY id DESC LIMIT $5`,
    [input.accountId, input.status ?? null, input.paymentStatus ?? null, input.beforeId ?? null, input.limit + 1],
  );
  const page = rows.slice(0, input.limit).map(summary);
  return { orders: page, nextBeforeId: rows.length > input.limit ? (page.at(-1)?.id ?? null) : null };
}

export async function getOrder(
  deps: { db: Db },
  input: { accountId: string; referenceId: string },
): Promise<OrderView> {
  const {
    rows: [row],
  } = await deps.db.sql.query<OrderRow>(
    `SELECT * FROM orders WHERE account_id = $1::uuid AND reference_id = $2 AND state = 'open'`,
    [input.accountId, input.referenceId],
  );
  if (!row) throw new ApiError("not_found", { message: `O pedido ${input.referenceId} não existe nesta conta.` });
  const { rows: history } = await deps.db.sql.query<{
    wamid: string;
    kind: "order_details" | "order_status";
    order_status: OrderStatus;
    payment_status: PaymentStatus | null;
    payment_timestamp: string | null;
    description: string | null;
    accepted_at: Date;
    actor: string;
    status: "sent" | "delivered" | "read" | "failed" | "accepted" | null;
    error_code: number | null;
    error_reason: string | null;
  }>(
    `SELECT h.wamid, h.kind, h.order_status, h.payment_status, h.payment_timestamp, h.description, h.accepted_at,
            h.actor, m.status, m.error_code, m.error_reason
       FROM order_messages h LEFT JOIN messages m ON m.wamid = h.wamid
      WHERE h.order_id = $1 AND h.state = 'accepted' ORDER BY h.id`,
    [row.id],
  );
  return {
    ...summary(row),
    history: history.map((entry) => ({
      message_id: entry.wamid,
      kind: entry.kind,
      order_status: entry.order_status,
      payment_status: entry.payment_status,
      payment_timestamp: entry.payment_timestamp === null ? null : Number(entry.payment_timestamp),
      description: entry.description,
      sent_at: entry.accepted_at.toISOString(),
      origin: entry.actor.startsWith("panel:") ? "panel" : "api",
      message_status: entry.status === "accepted" ? null : entry.status,
      error:
        entry.error_code === null
          ? null
          : { code: entry.error_code, message: entry.error_reason ?? "", reason: "provider_rejected" },
    })),
  };
}

const RANK: Record<OrderStatus, number> = {
  pending: 0,
  processing: 1,
  partially_shipped: 2,
  shipped: 3,
  completed: 4,
  canceled: -1,
};
const PAYMENT_MOVES: Record<PaymentStatus, PaymentStatus[]> = {
  pending: ["pending", "captured", "failed"],
  failed: ["failed", "pending", "captured"],
  captured: ["captured"],
};

/** Design-28 §4.2: the (status, resulting payments) pairs an order may move to. */
export function nextOrderStatuses(order: OrderView): { orderStatus: OrderStatus; paymentStatuses: PaymentStatus[] }[] {
  const current = order.order_status;
  if (current === "completed" || current === "canceled") return [];
  const last = order.history.filter((entry) => entry.kind === "order_status").at(-1);
  const lastFailed = last?.message_status === "failed";
  return ORDER_STATUSES.filter((status) => status !== "pending")
    .map((orderStatus) => ({
      orderStatus,
      paymentStatuses: PAYMENT_MOVES[order.payment_status].filter((payment) => {
        if (orderStatus === "canceled") return payment === "failed";
        if (RANK[orderStatus] > RANK[current]) return true;
        if (RANK[orderStatus] < RANK[current]) return false;
        return orderStatus === "partially_shipped" || payment !== order.payment_status || lastFailed;
      }),
    }))
    .filter((pair) => pair.paymentStatuses.length > 0);
}

/** Stand-in for the real flow (design-28 §4.3): key, rule check, Graph call, record on acceptance. No window check. */
export async function updateOrderStatus(
  deps: SendDeps,
  input: {
    accountId: string;
    referenceId: string;
    change: {
      orderStatus: OrderStatus;
      paymentStatus?: PaymentStatus | undefined;
      description?: string | undefined;
      paymentTimestamp?: number | undefined;
      text?: string | undefined;
    };
    idempotencyKey?: string | undefined;
    actor: Actor;
    requestId: string;
    auditAction: string;
  },
): Promise<SendOutcome> {
  let order: OrderView;
  try {
    order = await getOrder(deps, input);
  } catch (error) {
    if (error instanceof ApiError) return { kind: "refused", error };
    throw error;
  }
  const { change } = input;
  let reservation: string | null = null;
  if (input.idempotencyKey) {
    const reserved = await deps.idempotency.reserve({
      accountId: input.accountId,
      key: input.idempotencyKey,
      fingerprint: fingerprint({ op: "order.status", reference_id: input.referenceId, ...change }),
      requestId: input.requestId,
    });
    if (reserved.kind === "replay") return { ...reserved.outcome, replayed: true };
    reservation = reserved.id;
  }
  const release = async () => {
    if (reservation !== null) await deps.idempotency.release(reservation);
  };
  const payment = change.paymentStatus ?? order.payment_status;
  const allowed = nextOrderStatuses(order).some(
    (pair) => pair.orderStatus === change.orderStatus && pair.paymentStatuses.includes(payment),
  );
  if (!allowed) {
    await release();
    return {
      kind: "refused",
      error: new ApiError("provider_rejected", {
        message: "Esta mudança de status não é permitida para o pedido no estado em que ele está; nada foi enviado.",
      }),
    };
  }
  const text = change.text ?? `Seu pedido ${order.reference_id} foi atualizado.`;
  const payload = {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    ...(/^\d+$/.test(order.to) ? { to: order.to } : { recipient: order.to }),
    type: "interactive",
    interactive: {
      type: "order_status",
      body: { text },
      action: {
        name: "review_order",
        parameters: {
          reference_id: order.reference_id,
          order: {
            status: change.orderStatus === "partially_shipped" ? "partially-shipped" : change.orderStatus,
            ...(change.description ? { description: change.description } : {}),
          },
          ...(change.paymentStatus
            ? {
                payment: {
                  status: change.paymentStatus,
                  ...(change.paymentTimestamp ? { timestamp: change.paymentTimestamp } : {}),
                },
              }
            : {}),
        },
      },
    },
  } as unknown as GraphMessagePayload;
  if (reservation !== null) await deps.idempotency.markProviderCall(reservation);
  let wamid: string;
  try {
    wamid = (await deps.meta.sendMessage(order.phone_number_id, payload)).wamid;
  } catch (error) {
    if (!(error instanceof MetaApiError)) throw error;
    await release();
    return { kind: "refused", error: new ApiError(error.reason) };
  }
  const message = {
    messageId: wamid,
    to: order.to,
    type: "interactive" as const,
    phoneNumberId: order.phone_number_id,
    clientRef: null,
    order: { orderStatus: change.orderStatus, paymentStatus: payment },
  };
  await inTransaction(deps.db.sql, async (sql) => {
    await sql.query(
      `INSERT INTO order_messages (order_id, kind, state, wamid, order_status, payment_status, payment_timestamp,
         description, body_text, actor, request_id, accepted_at)
       VALUES ($1, 'order_status', 'accepted', $2, $3, $4, $5, $6, $7, $8, $9, now())`,
      [
        order.id,
        wamid,
        change.orderStatus,
        change.paymentStatus ?? null,
        change.paymentTimestamp ?? null,
        change.description ?? null,
        text,
        input.actor.id,
        input.requestId,
      ],
    );
    await sql.query(
      `UPDATE orders SET order_status = $2, payment_status = $3, description = $4, updated_at = now() WHERE id = $1`,
      [order.id, change.orderStatus, payment, change.description ?? null],
    );
    if (reservation !== null) await deps.idempotency.complete(sql, reservation, { kind: "sent", message }, wamid);
  });
  return { kind: "sent", message, replayed: false };
}

/** Conversas' messages with each order message's current order (design-28 §6; core fills it after the merge). */
export async function listConversationMessages(
  deps: { db: Db },
  input: Parameters<typeof listCoreConversationMessages>[1],
): Promise<
  Omit<Awaited<ReturnType<typeof listCoreConversationMessages>>, "messages"> & { messages: ConversationMessageView[] }
> {
  const conversation = await listCoreConversationMessages(deps, input);
  const wamids = conversation.messages.filter((m) => m.direction === "outbound").map((m) => m.wamid);
  const { rows: orders } = await deps.db.sql.query<{
    wamid: string;
    reference_id: string;
    order_status: OrderStatus;
    payment_status: PaymentStatus;
  }>(
    `SELECT om.wamid, o.reference_id, o.order_status, o.payment_status FROM order_messages om
       JOIN orders o ON o.id = om.order_id WHERE om.wamid = ANY($1::text[]) AND o.account_id = $2::uuid`,
    [wamids, input.accountId],
  );
  const byWamid = new Map(orders.map((row) => [row.wamid, row]));
  return {
    ...conversation,
    messages: conversation.messages.map((message) => {
      const row = byWamid.get(message.wamid);
      return {
        ...message,
        order: row
          ? { reference_id: row.reference_id, order_status: row.order_status, payment_status: row.payment_status }
          : null,
      };
    }),
  };
}
