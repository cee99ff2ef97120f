import { ApiError } from "@gw/errors";
import type { Actor } from "../audit/audit.ts";
import type { OrderStatusTemplate, PaymentStatusValue } from "../messages/order-records.ts";
import type { SendOutcome } from "../messages/outcome.ts";
import { sendMessage, type SendDeps } from "../messages/send.ts";
import { defaultOrderStatusText } from "./texts.ts";
import type { RequestedOrderStatus } from "@gw/contracts";
import { checkTransition } from "./transitions.ts";
import { findOpenOrder } from "./views.ts";

export interface OrderStatusChange {
  orderStatus: RequestedOrderStatus;
  /** Absent: no payment object is sent and the order's payment is kept. */
  paymentStatus?: PaymentStatusValue | null | undefined;
  /** Meta's `order.description`, ≤ 120. */
  description?: string | null | undefined;
  /** Unix seconds; only with `paymentStatus`. */
  paymentTimestamp?: number | null | undefined;
  /** The message body; default the sentence of `defaultOrderStatusText`. */
  text?: string | null | undefined;
  /**
   * Meta's order-status template carries the status instead of the interactive message: in or out of the window, no
   * payment and no text (the contract refuses them with it).
   */
  template?: OrderStatusTemplate | null | undefined;
}

export interface UpdateOrderStatusInput {
  accountId: string;
  referenceId: string;
  change: OrderStatusChange;
  idempotencyKey?: string | null | undefined;
  actor: Actor;
  requestId: string;
}

/**
 * POST /public/v1/orders/{reference_id}/status and the panel's Pedidos form (design-28 §4.3): an `order_status`
 * message to the order's recipient from the order's number, through the one send service (key, window, status claim
 * and transition check, pacing, Meta, the accepted transaction that moves the order and writes
 * `<origin>.order.status`). The order changes only when Meta accepted the message; the outcome's `message.order` holds
 * the resulting pair. An unknown order is 404 `not_found` before the key (orders are never deleted).
 */
export async function updateOrderStatus(deps: SendDeps, input: UpdateOrderStatusInput): Promise<SendOutcome> {
  let order;
  try {
    order = await findOpenOrder(deps, input);
  } catch (error) {
    if (error instanceof ApiError) return { kind: "refused", error };
    throw error;
  }
  const { change } = input;
  const request = { op: "order.status", reference_id: input.referenceId, ...bodyOf(change) };
  return sendMessage(deps, {
    accountId: input.accountId,
    actor: input.actor,
    requestId: input.requestId,
    to: order.to,
    phoneNumberId: order.phoneNumberId,
    pacing: "refuse",
    content: {
      kind: "order_status",
      referenceId: order.referenceId,
      orderStatus: change.orderStatus,
      paymentStatus: change.paymentStatus ?? null,
      paymentTimestamp: change.paymentStatus ? (change.paymentTimestamp ?? null) : null,
      description: change.description ?? null,
      // The default names the payment the message leaves the order with; the order's own is read again under the
      // claim, so a default written from a stale read only words the message, never decides a transition.
      text:
        change.text ??
        defaultOrderStatusText(order.referenceId, change.orderStatus, change.paymentStatus ?? order.paymentStatus),
      template: change.template ?? null,
    },
    order: {
      kind: "status",
      orderId: String(order.id),
      check: (current, lastFailed) => checkTransition(current, change, lastFailed),
    },
    ...(input.idempotencyKey ? { idempotency: { key: input.idempotencyKey, fingerprint: { request } } } : {}),
  });
}

/** The request as the integrator wrote it (snake_case), for the key's fingerprint. */
function bodyOf(change: OrderStatusChange) {
  return {
    order_status: change.orderStatus,
    payment_status: change.paymentStatus ?? undefined,
    description: change.description ?? undefined,
    payment_timestamp: change.paymentTimestamp ?? undefined,
    text: change.text ?? undefined,
    template: change.template ?? undefined,
  };
}
