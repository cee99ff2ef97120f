// The status vocabularies of the contract, spelled once. @gw/contracts sits below every tier, so each of them imports
// these instead of typing a copy; packages/contracts/test/statuses.single-spelling.test.ts fails on a new copy.

/** Spec 6.2: a sent message's statuses, as `message.status` reports them. */
export const MESSAGE_STATUSES = ["sent", "delivered", "read", "failed"] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** Spec 3.1: each status's `status_rank`. `failed` is a separate outcome: never compared by rank. */
export const MESSAGE_STATUS_RANK = { failed: 1, sent: 2, delivered: 3, read: 4 } as const satisfies Record<
  MessageStatus,
  number
>;

export function isMessageStatus(value: unknown): value is MessageStatus {
  return (MESSAGE_STATUSES as readonly unknown[]).includes(value);
}

/** Issue 28: a Pix order's statuses (`partially_shipped` underscored; Meta's is hyphenated). */
export const ORDER_STATUSES = [
  "pending",
  "processing",
  "partially_shipped",
  "shipped",
  "completed",
  "canceled",
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** What a status update may ask for: every order status but `pending`, where an order starts. */
export type RequestedOrderStatus = Exclude<OrderStatus, "pending">;
export const REQUESTED_ORDER_STATUSES = ORDER_STATUSES.filter(
  (status): status is RequestedOrderStatus => status !== "pending",
) as [RequestedOrderStatus, ...RequestedOrderStatus[]];

/** Issue 28: a Pix order's payment statuses. */
export const PAYMENT_STATUSES = ["pending", "captured", "failed"] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
