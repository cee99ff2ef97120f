import { PAYMENT_STATUSES, REQUESTED_ORDER_STATUSES, type RequestedOrderStatus } from "@gw/contracts";
import { ApiError } from "@gw/errors";
import type { OrderState, OrderStatusValue, PaymentStatusValue } from "../messages/order-records.ts";

// Which order_status message may follow an order's current state (design-28 §4.2; docs/decisions.md, "Pix orders",
// D3). Pure: the send's status claim runs it against the state it read under the claim, the panel's form offers only
// what it allows. Meta lists the values and two refusals (2046 invalid transition, 2047 cancel with a payment pending
// or succeeded) but no matrix; a stricter Meta answers those codes, which map to the same refusals.

export interface OrderChangeRequest {
  orderStatus: RequestedOrderStatus;
  /** Absent: the payment is kept. */
  paymentStatus?: PaymentStatusValue | null | undefined;
}

const RANK: Record<Exclude<OrderStatusValue, "canceled">, number> = {
  pending: 0,
  processing: 1,
  partially_shipped: 2,
  shipped: 3,
  completed: 4,
};

const PAYMENT_MOVES: Record<PaymentStatusValue, readonly PaymentStatusValue[]> = {
  // From pending, any: the PSP may confirm, refuse or still wait.
  pending: PAYMENT_STATUSES,
  failed: ["failed", "pending", "captured"],
  captured: ["captured"],
};

/**
 * The refusal of `request` from `current`, or null when it may be sent. `lastFailed`: the order's latest
 * order_status message ended `failed` (an equal status may then be sent again).
 */
export function transitionRefusal(
  current: OrderState,
  request: OrderChangeRequest,
  lastFailed: boolean,
): ApiError | null {
  // 1. Terminal states.
  if (current.orderStatus === "completed" || current.orderStatus === "canceled")
    return new ApiError("order_transition_invalid");
  const payment = request.paymentStatus ?? current.paymentStatus;
  // 2. Payment moves: nothing leaves captured.
  if (!PAYMENT_MOVES[current.paymentStatus].includes(payment)) return new ApiError("order_transition_invalid");
  // 3. Cancel only once the payment is (or becomes, in this message) failed.
  if (request.orderStatus === "canceled") return payment === "failed" ? null : new ApiError("order_cancel_refused");
  // 4. Forward on the ladder; an equal rank only for another partial shipment, a payment change or a resend.
  const from = RANK[current.orderStatus];
  const to = RANK[request.orderStatus];
  if (to > from) return null;
  if (to === from && (request.orderStatus === "partially_shipped" || payment !== current.paymentStatus || lastFailed))
    return null;
  return new ApiError("order_transition_invalid");
}

/** `transitionRefusal` as the send's claim wants it: throws the refusal. */
export function checkTransition(current: OrderState, request: OrderChangeRequest, lastFailed: boolean): void {
  const refusal = transitionRefusal(current, request, lastFailed);
  if (refusal) throw refusal;
}

/** What may be sent next from `order`: each status with the payment statuses it may carry (the panel's form). */
export function nextOrderStatuses(
  order: OrderState & { lastFailed?: boolean },
): { orderStatus: RequestedOrderStatus; paymentStatuses: PaymentStatusValue[] }[] {
  const options: { orderStatus: RequestedOrderStatus; paymentStatuses: PaymentStatusValue[] }[] = [];
  for (const orderStatus of REQUESTED_ORDER_STATUSES) {
    const paymentStatuses = PAYMENT_STATUSES.filter(
      (paymentStatus) => transitionRefusal(order, { orderStatus, paymentStatus }, order.lastFailed ?? false) === null,
    );
    if (paymentStatuses.length > 0) options.push({ orderStatus, paymentStatuses: [...paymentStatuses] });
  }
  return options;
}
