// What the panel uses of the orders concern (design-28 §11, "A → C"), in one place.
export { ORDER_STATUSES, PAYMENT_STATUSES } from "@gw/contracts";
export { getOrder, listOrders, nextOrderStatuses, updateOrderStatus } from "@gw/core/orders";
export type { OrderSummaryView, OrderView } from "@gw/core/orders";
export { listConversationMessages, type ConversationMessageView } from "@gw/core/conversations";
export { isOrderStatusTemplate, templateShape } from "@gw/core/templates";
export { windowStatus } from "@gw/core/windows";
