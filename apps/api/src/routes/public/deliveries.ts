import type { Router } from "express";
import {
  DeliveriesQuery,
  DeliveryDetailOut,
  DeliveryListOut,
  DeliveryPath,
  RetryFailedOut,
  RetryOut,
  errorExamples,
  errorResponse,
  errorSchema,
  internalError,
  jsonResponse,
  requestValidation,
  tooManyRequests,
  unauthorized,
  unreadableRequest,
  validationRef,
  type PublicOperation,
  parseRequest,
} from "@gw/contracts";
import { getDelivery, listDeliveries, retryDelivery, retryFailedDeliveries } from "@gw/core";
import type { Db } from "@gw/db";
import type { WebhookQueue } from "@gw/jobs";
import { apiActor, authOf } from "../../http/auth.ts";

/** Spec 4.5–4.8: the account's webhook delivery queue. */
export function register(router: Router, deps: { db: Db; queue: WebhookQueue }): void {
  router.get("/deliveries", async (req, res) => {
    const { accountId } = authOf(req);
    const query = parseRequest(DeliveriesQuery, "query", req.query);
    const data = await listDeliveries(deps, {
      accountId,
      status: query.status,
      limit: query.limit,
      beforeId: query.before_id,
    });
    res.json({ success: true, data });
  });

  // Declared before /deliveries/:delivery_id so "retry-failed" is never read as an id.
  router.post("/deliveries/retry-failed", async (req, res) => {
    const { accountId } = authOf(req);
    const requeued = await retryFailedDeliveries(deps, {
      accountId,
      actor: apiActor(req),
    });
    res.json({ success: true, data: { requeued } });
  });

  router.get("/deliveries/:delivery_id", async (req, res) => {
    const { accountId } = authOf(req);
    const path = parseRequest(DeliveryPath, "path", req.params);
    res.json({ success: true, data: await getDelivery(deps, { accountId, deliveryId: path.delivery_id }) });
  });

  router.post("/deliveries/:delivery_id/retry", async (req, res) => {
    const { accountId } = authOf(req);
    const path = parseRequest(DeliveryPath, "path", req.params);
    const result = await retryDelivery(deps, {
      accountId,
      deliveryId: String(path.delivery_id),
      actor: apiActor(req),
    });
    res.json({
      success: true,
      data: { id: Number(result.id), status: result.status, next_attempt: result.nextAttempt },
    });
  });
}

const common = {
  401: unauthorized,
  429: tooManyRequests(["api_rate_limited"]),
  500: internalError,
};
const notInAccount = errorResponse("Delivery not in this account.", ["not_found"]);
const unreadablePath = unreadableRequest("The path (an invalid %-escape)");

export const operations: readonly PublicOperation[] = [
  {
    method: "get",
    path: "/deliveries",
    operationId: "listDeliveries",
    summary: "Webhook delivery queue",
    description: "Most recent first. Repeat with `before_id=next_before_id` until `next_before_id` is null.",
    request: { query: DeliveriesQuery },
    responses: {
      200: jsonResponse("One page of deliveries.", DeliveryListOut),
      422: requestValidation("query"),
      ...common,
    },
  },
  {
    method: "post",
    path: "/deliveries/retry-failed",
    operationId: "retryFailedDeliveries",
    summary: "Resend all failed deliveries",
    description:
      "Re-queues every delivery that exhausted its automatic attempts. No body (one sent is ignored), no parameters.",
    responses: {
      200: jsonResponse("How many deliveries were re-queued.", RetryFailedOut),
      ...common,
    },
  },
  {
    method: "get",
    path: "/deliveries/{delivery_id}",
    operationId: "getDelivery",
    summary: "One delivery",
    description: "`last_error` is the body the integrator's endpoint answered, also on 2xx.",
    request: { params: DeliveryPath },
    responses: {
      200: jsonResponse("The delivery, with the signed envelope.", DeliveryDetailOut),
      400: unreadablePath,
      404: notInAccount,
      422: requestValidation("path"),
      ...common,
    },
  },
  {
    method: "post",
    path: "/deliveries/{delivery_id}/retry",
    operationId: "retryDelivery",
    summary: "Resend a delivery",
    description:
      "For deliveries in `failed` or `delivered`; the body is signed again at dispatch with a current timestamp. Audited as `api.webhook.retry`.",
    request: { params: DeliveryPath },
    responses: {
      200: jsonResponse("Back in the queue.", RetryOut),
      400: unreadablePath,
      404: notInAccount,
      422: {
        description:
          "The delivery is `pending` or `delivering` — error envelope, code `delivery_not_retryable`; or an invalid path — `HTTPValidationError`.",
        content: {
          "application/json": {
            schema: { anyOf: [errorSchema(["delivery_not_retryable"]), validationRef] },
            examples: errorExamples(["delivery_not_retryable"]),
          },
        },
      },
      ...common,
    },
  },
];
