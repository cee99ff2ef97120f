// Which order_status may follow an order's state (design-28 §4.2; docs/decisions.md "Pix orders", D3): every
// (current × request) pair is judged against the design's four rules, checked in order, and a few named cases pin the
// issue's acceptance (cancel after captured, anything after completed).
import { describe, expect, it } from "@jest/globals";
import { ORDER_STATUSES, PAYMENT_STATUSES, REQUESTED_ORDER_STATUSES, type RequestedOrderStatus } from "@gw/contracts";
import {
  nextOrderStatuses,
  transitionRefusal,
  type OrderStatusValue,
  type PaymentStatusValue,
} from "../src/orders/index.ts";

const LADDER = ["pending", "processing", "partially_shipped", "shipped", "completed"];

/** The design's table, read literally: the expected code, or null when the message may be sent. */
function expected(
  cur: { orderStatus: OrderStatusValue; paymentStatus: PaymentStatusValue },
  req: { orderStatus: RequestedOrderStatus; paymentStatus?: PaymentStatusValue },
  lastFailed: boolean,
): string | null {
  if (cur.orderStatus === "completed" || cur.orderStatus === "canceled") return "order_transition_invalid";
  const pay = req.paymentStatus ?? cur.paymentStatus;
  const allowedPayment =
    pay === cur.paymentStatus ||
    (cur.paymentStatus === "pending" && (pay === "captured" || pay === "failed")) ||
    (cur.paymentStatus === "failed" && (pay === "pending" || pay === "captured"));
  if (!allowedPayment) return "order_transition_invalid";
  if (req.orderStatus === "canceled") return pay === "failed" ? null : "order_cancel_refused";
  const from = LADDER.indexOf(cur.orderStatus);
  const to = LADDER.indexOf(req.orderStatus);
  if (to > from) return null;
  if (to === from && (req.orderStatus === "partially_shipped" || pay !== cur.paymentStatus || lastFailed)) return null;
  return "order_transition_invalid";
}

const PAYMENTS_OR_ABSENT: (PaymentStatusValue | undefined)[] = [undefined, ...PAYMENT_STATUSES];

describe("order status transitions", () => {
  it("judges every (current order, payment) × (requested order, payment or none) × last-failed pair as the table says", () => {
    let pairs = 0;
    for (const orderStatus of ORDER_STATUSES)
      for (const paymentStatus of PAYMENT_STATUSES)
        for (const requested of REQUESTED_ORDER_STATUSES)
          for (const requestedPayment of PAYMENTS_OR_ABSENT)
            for (const lastFailed of [false, true]) {
              const cur = { orderStatus, paymentStatus };
              const req = { orderStatus: requested, paymentStatus: requestedPayment };
              const refusal = transitionRefusal(cur, req, lastFailed);
              expect([cur, req, lastFailed, refusal?.code ?? null]).toEqual([
                cur,
                req,
                lastFailed,
                expected(cur, req, lastFailed),
              ]);
              pairs++;
            }
    expect(pairs).toBe(6 * 3 * 5 * 4 * 2);
  });

  it("refuses a cancel after the payment was captured, and anything after completed or canceled", () => {
    const captured = { orderStatus: "processing" as const, paymentStatus: "captured" as const };
    expect(transitionRefusal(captured, { orderStatus: "canceled" }, false)?.code).toBe("order_cancel_refused");
    expect(transitionRefusal(captured, { orderStatus: "canceled", paymentStatus: "failed" }, false)?.code).toBe(
      "order_transition_invalid",
    );
    for (const terminal of ["completed", "canceled"] as const)
      for (const orderStatus of REQUESTED_ORDER_STATUSES)
        expect(transitionRefusal({ orderStatus: terminal, paymentStatus: "failed" }, { orderStatus }, true)?.code).toBe(
          "order_transition_invalid",
        );
  });

  it("closes an unpaid order with {canceled, failed} in one message, and ships before capture", () => {
    const pending = { orderStatus: "pending" as const, paymentStatus: "pending" as const };
    expect(transitionRefusal(pending, { orderStatus: "canceled", paymentStatus: "failed" }, false)).toBeNull();
    expect(transitionRefusal(pending, { orderStatus: "canceled" }, false)?.code).toBe("order_cancel_refused");
    expect(transitionRefusal(pending, { orderStatus: "shipped" }, false)).toBeNull();
    expect(transitionRefusal(pending, { orderStatus: "completed" }, false)).toBeNull();
  });

  it("allows an equal status only for another partial shipment, a payment change or a resend after a failure", () => {
    const processing = { orderStatus: "processing" as const, paymentStatus: "pending" as const };
    expect(transitionRefusal(processing, { orderStatus: "processing" }, false)?.code).toBe("order_transition_invalid");
    expect(transitionRefusal(processing, { orderStatus: "processing" }, true)).toBeNull();
    expect(transitionRefusal(processing, { orderStatus: "processing", paymentStatus: "captured" }, false)).toBeNull();
    const partial = { orderStatus: "partially_shipped" as const, paymentStatus: "captured" as const };
    expect(transitionRefusal(partial, { orderStatus: "partially_shipped" }, false)).toBeNull();
    expect(transitionRefusal(partial, { orderStatus: "processing" }, true)?.code).toBe("order_transition_invalid");
  });

  it("offers the panel exactly the pairs the rules allow", () => {
    const order = { orderStatus: "processing" as const, paymentStatus: "captured" as const };
    expect(nextOrderStatuses(order)).toEqual([
      { orderStatus: "partially_shipped", paymentStatuses: ["captured"] },
      { orderStatus: "shipped", paymentStatuses: ["captured"] },
      { orderStatus: "completed", paymentStatuses: ["captured"] },
    ]);
    expect(nextOrderStatuses({ orderStatus: "completed", paymentStatus: "captured" })).toEqual([]);
  });
});
