export { checkTransition, nextOrderStatuses, transitionRefusal } from "./transitions.ts";
export type { OrderChangeRequest } from "./transitions.ts";
export { defaultOrderStatusText } from "./texts.ts";
export { getOrder, listOrders, orderNotFound } from "./views.ts";
export type {
  ListOrdersInput,
  OrderHistoryEntryView,
  OrderItemView,
  OrderMessageStatus,
  OrderSummaryView,
  OrderView,
  PaymentMethod,
} from "./views.ts";
export { updateOrderStatus } from "./status.ts";
export type { OrderStatusChange, UpdateOrderStatusInput } from "./status.ts";
export type { OrderState, OrderStatusValue, PaymentStatusValue } from "../messages/order-records.ts";
