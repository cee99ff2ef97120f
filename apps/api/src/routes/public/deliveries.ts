import type { Router } from "express";
import { DeliveriesQuery, DeliveryPath, parseRequest } from "@gw/contracts";
import { getDelivery, listDeliveries, retryDelivery, retryFailedDeliveries } from "@gw/core";
import type { Db } from "@gw/db";
import type { WebhookQueue } from "@gw/jobs";
import { authOf } from "../../http/auth.ts";

/** Spec 4.5–4.8: the account's webhook delivery queue. */
export function register(router: Router, deps: { db: Db; queue: WebhookQueue }): void {
  router.get("/deliveries", async (req, res) => {
    const { accountId } = authOf(req);
    const query = parseRequest(DeliveriesQuery, "query", req.query);
    res.json({ success: true, data: await listDeliveries(deps.db, accountId, query) });
  });

  // Declared before /deliveries/:delivery_id so "retry-failed" is never read as an id.
  router.post("/deliveries/retry-failed", async (req, res) => {
    const { accountId, keyId } = authOf(req);
    const requeued = await retryFailedDeliveries({
      db: deps.db,
      queue: deps.queue,
      accountId,
      actor: `api_key:${keyId}`,
      action: "api.webhook.retry",
      requestId: req.requestId,
    });
    res.json({ success: true, data: { requeued } });
  });

  router.get("/deliveries/:delivery_id", async (req, res) => {
    const { accountId } = authOf(req);
    const path = parseRequest(DeliveryPath, "path", req.params);
    res.json({ success: true, data: await getDelivery(deps.db, accountId, path.delivery_id) });
  });

  router.post("/deliveries/:delivery_id/retry", async (req, res) => {
    const { accountId, keyId } = authOf(req);
    const path = parseRequest(DeliveryPath, "path", req.params);
    const result = await retryDelivery({
      db: deps.db,
      queue: deps.queue,
      accountId,
      deliveryId: String(path.delivery_id),
      actor: `api_key:${keyId}`,
      action: "api.webhook.retry",
      requestId: req.requestId,
    });
    res.json({
      success: true,
      data: { id: Number(result.id), status: result.status, next_attempt: result.nextAttempt },
    });
  });
}
