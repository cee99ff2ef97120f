import {
  OrderPath,
  OrderStatusIn,
  OrderStatusUpdateOut,
  SendConflictHeaders,
  SendRequestHeaders,
  SendResponseHeaders,
  codeList,
  errorResponse,
  orderNotFound,
  payloadTooLarge,
  refusalOrValidation,
  tooManyRequests,
  type ExampleName,
} from "@gw/contracts";
import type { AcceptedMessage } from "@gw/core/messages";
import { updateOrderStatus } from "@gw/core/orders";
import type { ErrorCode } from "@gw/errors";
import { defineRoute } from "../define-route.ts";
import { answerSend } from "../send-answer.ts";

const REFUSED_422: readonly ErrorCode[] = [
  "order_transition_invalid",
  "order_cancel_refused",
  "payment_not_supported",
  "outside_24h_window",
  "invalid_template",
  "template_not_found",
  "template_paused",
  "template_params_mismatch",
  "recipient_unreachable",
  "recipient_opted_out",
  "delivery_limited",
  "payment_issue",
  "account_restricted",
  "account_disabled",
  "provider_rejected",
];

const EXAMPLE_NAMES: readonly ExampleName[] = [
  { name: "captured", summary: "Payment confirmed by the PSP: the order is being prepared" },
  { name: "shipped", summary: "Shipped, payment unchanged" },
  { name: "canceled", summary: "An unpaid order closed: canceled with the payment failed" },
  { name: "template", summary: "Outside the 24-hour window: completed, by the order-status template" },
];

/**
 * The 200 body of a status send, the same for the first call and every repeat with its key (rendered only from the
 * key's stored outcome): the order's resulting pair. Null for a message without its order (never for this route's
 * sends), which answers as unconfirmed.
 */
function sentBody(message: AcceptedMessage): string | null {
  const { order } = message;
  if (!order) return null;
  const data = {
    reference_id: order.referenceId,
    message_id: message.messageId,
    order_status: order.orderStatus,
    payment_status: order.paymentStatus,
    to: message.to,
    phone_number_id: message.phoneNumberId,
  } satisfies OrderStatusUpdateOut["data"];
  return JSON.stringify({ success: true, data } satisfies OrderStatusUpdateOut);
}

/** POST /public/v1/orders/{reference_id}/status: an order_status message that moves the order (design-28 §4). */
export const { register, operations } = defineRoute({
  method: "post",
  path: "/orders/{reference_id}/status",
  operationId: "updateOrderStatus",
  scope: "orders:write",
  summary: "Send an order's next status (order_status message)",
  description:
    "Sends an `order_status` message with the order's `reference_id` to the customer the order went to, from the number it left from, and moves the order when the provider accepts it (never before). The transition is checked before the provider (422, nothing sent): nothing follows `completed` or `canceled`, the payment never leaves `captured`, `canceled` needs the payment `failed` (already, or in the same message), and the status never goes back. Without `template` it is a free-form message: the customer's 24-hour window must be open (422 `outside_24h_window` otherwise). With `template` (an approved UTILITY template of sub-category ORDER_STATUS, `GET /templates` shows `sub_category`) it is Meta's order-status template, sent in or out of the window; another template is refused before the provider (422 `invalid_template`). Both forms follow the same transitions, one update in flight per order, and write the same history (its `form` says which carried each status). " +
    "With `Idempotency-Key` the key is reserved before the provider is contacted; repeat a call after a connection error or a 5xx with the SAME key and the same body.",
  request: {
    params: OrderPath,
    headers: SendRequestHeaders,
    body: { schema: OrderStatusIn, examples: EXAMPLE_NAMES },
  },
  responses: {
    200: {
      description: "Sent and the order moved; `data.message_id` is the id later carried by `message.status`.",
      headers: SendResponseHeaders,
      content: { "application/json": { schema: OrderStatusUpdateOut } },
    },
    400: errorResponse("Business number of the order no longer connected, or a request that cannot be read.", [
      "no_connected_number",
      "bad_request",
    ]),
    404: orderNotFound,
    409: errorResponse(
      "Idempotency-Key in use (still in progress, or used with another body), or another status update of this order still in progress (honour `Retry-After`).",
      ["idempotency_in_flight", "idempotency_conflict", "idempotency_legacy_unverified", "order_update_in_flight"],
      SendConflictHeaders,
    ),
    413: payloadTooLarge,
    422: refusalOrValidation(
      `The transition is not allowed, or the provider (or the service's own pre-check) refused the send — error envelope, codes: ${codeList(REFUSED_422)}; or the body, path or Idempotency-Key header is invalid — \`HTTPValidationError\`.`,
      REFUSED_422,
      ["order_transition_invalid", "order_cancel_refused"],
    ),
    429: tooManyRequests(["api_rate_limited", "rate_limited"]),
    503: errorResponse(
      "Provider unavailable, or a send the provider did not confirm (never resent with that key; the order did not move); repeat with the same Idempotency-Key.",
      ["send_unconfirmed", "provider_unavailable"],
    ),
  },
  handler: ({ accountId, actor, params, headers, body, req, res }, deps) =>
    answerSend(
      deps,
      res,
      () =>
        updateOrderStatus(deps.send, {
          accountId,
          referenceId: params.reference_id,
          change: {
            orderStatus: body.order_status,
            paymentStatus: body.payment_status,
            description: body.description,
            paymentTimestamp: body.payment_timestamp,
            text: body.text,
            template: body.template,
          },
          idempotencyKey: headers["idempotency-key"],
          actor,
          requestId: req.requestId,
        }),
      sentBody,
    ),
});
