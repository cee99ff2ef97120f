import { OrderListOut, OrdersQuery, jsonResponse, requestValidation } from "@gw/contracts";
import { listOrders } from "@gw/core/orders";
import { defineRoute } from "../define-route.ts";
import { orderSummaryOut } from "./orders.get.ts";

/** GET /public/v1/orders: the account's Pix orders, newest first, by status (design-28 §3). */
export const { register, operations } = defineRoute({
  method: "get",
  path: "/orders",
  operationId: "listOrders",
  scope: "orders:write",
  summary: "Pix orders",
  description:
    "Newest first, optionally only those in one order status or payment status. Repeat with `before_id=next_before_id` until it is null. Each order without its history (read it with `GET /orders/{reference_id}`).",
  request: { query: OrdersQuery },
  responses: {
    200: jsonResponse("One page of orders.", OrderListOut),
    422: requestValidation("query"),
  },
  handler: async ({ accountId, query }, deps) => {
    const page = await listOrders(deps, {
      accountId,
      status: query.status,
      paymentStatus: query.payment_status,
      limit: query.limit,
      beforeId: query.before_id,
    });
    return { orders: page.orders.map(orderSummaryOut), next_before_id: page.nextBeforeId };
  },
});
