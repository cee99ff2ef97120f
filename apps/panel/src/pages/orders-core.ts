// What the panel uses of the orders concern (design-28 §11, "A → C"), in one place.
// Until @gw/core/orders lands this re-exports a stand-in (orders-stub.ts). On merge, replace this file's body with:
//   export { ORDER_STATUSES, PAYMENT_STATUSES, getOrder, listOrders, nextOrderStatuses, updateOrderStatus } from "@gw/core/orders";
//   export type { OrderSummaryView, OrderView } from "@gw/core/orders";
//   export { listConversationMessages, type ConversationMessageView } from "@gw/core/conversations";
// and delete orders-stub.ts.
export {
  ORDER_STATUSES,
  PAYMENT_STATUSES,
  getOrder,
  listConversationMessages,
  listOrders,
  nextOrderStatuses,
  updateOrderStatus,
} from "./orders-stub.ts";
export type { ConversationMessageView, OrderSummaryView, OrderView } from "./orders-stub.ts";
