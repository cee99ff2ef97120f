import {
  DeliveriesQuery,
  DeliveryDetailOut,
  DeliveryListOut,
  DeliveryPath,
  RetryFailedOut,
  RetryOut,
  errorResponse,
  jsonResponse,
  requestValidation,
  unreadablePath,
  refusalOrValidation,
  resourcePathRefusals,
} from "@gw/contracts";
import { getDelivery, listDeliveries, retryDelivery, retryFailedDeliveries } from "@gw/core/deliveries";
import { defineRoute, routeModule } from "../define-route.ts";

const notInAccount = errorResponse("Delivery not in this account.", ["not_found"]);

/** Spec 4.5–4.8: the account's webhook delivery queue. */
export const { register, operations } = routeModule(
  defineRoute({
    method: "get",
    path: "/deliveries",
    operationId: "listDeliveries",
    scope: "messages:read",
    summary: "Webhook delivery queue",
    description: "Most recent first. Repeat with `before_id=next_before_id` until `next_before_id` is null.",
    request: { query: DeliveriesQuery },
    responses: {
      200: jsonResponse("One page of deliveries.", DeliveryListOut),
      422: requestValidation("query"),
    },
    handler: ({ accountId, query }, deps) =>
      listDeliveries(deps, { accountId, status: query.status, limit: query.limit, beforeId: query.before_id }),
  }),
  // Before /deliveries/{delivery_id}, so "retry-failed" is never read as an id.
  defineRoute({
    method: "post",
    path: "/deliveries/retry-failed",
    operationId: "retryFailedDeliveries",
    scope: "integrations:manage",
    summary: "Resend all failed deliveries",
    description:
      "Re-queues every delivery that exhausted its automatic attempts. No body (one sent is ignored), no parameters.",
    responses: {
      200: jsonResponse("How many deliveries were re-queued.", RetryFailedOut),
    },
    handler: async ({ accountId, actor }, deps) => ({
      requeued: await retryFailedDeliveries(deps, { accountId, actor }),
    }),
  }),
  defineRoute({
    method: "get",
    path: "/deliveries/{delivery_id}",
    operationId: "getDelivery",
    scope: "messages:read",
    summary: "One delivery",
    description: "`last_error` is the body the integrator's endpoint answered, also on 2xx.",
    request: { params: DeliveryPath },
    responses: {
      200: jsonResponse("The delivery, with the signed envelope.", DeliveryDetailOut),
      ...resourcePathRefusals(notInAccount),
    },
    handler: ({ accountId, params }, deps) => getDelivery(deps, { accountId, deliveryId: params.delivery_id }),
  }),
  defineRoute({
    method: "post",
    path: "/deliveries/{delivery_id}/retry",
    operationId: "retryDelivery",
    scope: "integrations:manage",
    summary: "Resend a delivery",
    description:
      "For deliveries in `failed` or `delivered`; the body is signed again at dispatch with a current timestamp. Audited as `api.webhook.retry`.",
    request: { params: DeliveryPath },
    responses: {
      200: jsonResponse("Back in the queue.", RetryOut),
      400: unreadablePath,
      404: notInAccount,
      422: refusalOrValidation(
        "The delivery is `pending` or `delivering` — error envelope, code `delivery_not_retryable`; or an invalid path — `HTTPValidationError`.",
        ["delivery_not_retryable"],
      ),
    },
    async handler({ accountId, actor, params }, deps) {
      const result = await retryDelivery(deps, { accountId, deliveryId: String(params.delivery_id), actor });
      return { id: Number(result.id), status: result.status, next_attempt: result.nextAttempt };
    },
  }),
);
