import {
  OrderDetailOut,
  OrderPath,
  jsonResponse,
  orderNotFound,
  requestValidation,
  unreadableRequest,
  type OrderOutput,
  type OrderSummaryOutput,
} from "@gw/contracts";
import { getOrder, type OrderSummaryView, type OrderView } from "@gw/core/orders";
import { defineRoute } from "../define-route.ts";

/** An order as the API shows it (snake_case, ISO dates), without its history. */
export function orderSummaryOut(order: OrderSummaryView): OrderSummaryOutput {
  return {
    id: order.id,
    reference_id: order.referenceId,
    phone_number_id: order.phoneNumberId,
    to: order.to,
    order_status: order.orderStatus,
    payment_status: order.paymentStatus,
    payment_timestamp: order.paymentTimestamp,
    description: order.description,
    goods_type: order.goodsType,
    currency: order.currency,
    template: order.template,
    client_ref: order.clientRef,
    items: order.items.map((item) => ({
      name: item.name,
      amount: item.amount,
      quantity: item.quantity,
      retailer_id: item.retailerId,
    })),
    subtotal: order.subtotal,
    tax: order.tax,
    total_amount: order.totalAmount,
    payment_methods: order.paymentMethods,
    message_id: order.messageId,
    created_at: order.createdAt.toISOString(),
    updated_at: order.updatedAt.toISOString(),
  };
}

function orderOut(order: OrderView): OrderOutput {
  return {
    ...orderSummaryOut(order),
    history: order.history.map((entry) => ({
      message_id: entry.messageId,
      kind: entry.kind,
      order_status: entry.orderStatus,
      payment_status: entry.paymentStatus,
      payment_timestamp: entry.paymentTimestamp,
      description: entry.description,
      sent_at: entry.sentAt.toISOString(),
      origin: entry.origin,
      form: entry.form,
      template: entry.template,
      message_status: entry.messageStatus,
      error: entry.error,
    })),
  };
}

/** GET /public/v1/orders/{reference_id}: the order, its status pair and its history (design-28 §3). */
export const { register, operations } = defineRoute({
  method: "get",
  path: "/orders/{reference_id}",
  operationId: "getOrder",
  scope: "orders:write",
  summary: "One Pix order, with its history",
  description:
    "The order a `pix_order` send recorded, its current order and payment status, and its history: the order_details message, then each order_status message, with the outcome the provider reported for it (`message_status`). Another account's reference is `not_found`.",
  request: { params: OrderPath },
  responses: {
    200: jsonResponse("The order.", OrderDetailOut),
    400: unreadableRequest("The path (an invalid %-escape)"),
    404: orderNotFound,
    422: requestValidation("path"),
  },
  handler: async ({ accountId, params }, deps) =>
    orderOut(await getOrder(deps, { accountId, referenceId: params.reference_id })),
});
