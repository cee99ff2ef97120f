import type { Router } from "express";
import {
  IntegrationEnableOut,
  IntegrationHealthOut,
  IntegrationPath,
  errorResponse,
  internalError,
  jsonResponse,
  parseRequest,
  requestValidation,
  tooManyRequests,
  unauthorized,
  unreadableRequest,
  type PublicOperation,
} from "@gw/contracts";
import { enableIntegration, endpointHealth } from "@gw/core";
import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { WebhookQueue } from "@gw/jobs";
import { apiActor, authOf } from "../../http/auth.ts";

/** Issue 21, item 3: an integration's endpoint health, and the manual re-enable after the gateway disabled it. */
export function register(router: Router, deps: { db: Db; queue: WebhookQueue }): void {
  router.get("/integrations/:integration_id/health", async (req, res) => {
    const { accountId } = authOf(req);
    const path = parseRequest(IntegrationPath, "path", req.params);
    const data = await endpointHealth(deps, { accountId, integrationId: path.integration_id });
    if (!data) throw new ApiError("not_found", { message: "A integração não foi encontrada nesta conta." });
    res.json({ success: true, data });
  });

  router.post("/integrations/:integration_id/enable", async (req, res) => {
    const { accountId } = authOf(req);
    const path = parseRequest(IntegrationPath, "path", req.params);
    const result = await enableIntegration(deps, {
      accountId,
      integrationId: path.integration_id,
      actor: apiActor(req),
    });
    res.json({
      success: true,
      data: { integration_id: result.integrationId, was_disabled: result.wasDisabled, resumed: result.resumed },
    });
  });
}

const common = {
  401: unauthorized,
  429: tooManyRequests(["api_rate_limited"]),
  500: internalError,
};
const notInAccount = errorResponse("Integration not in this account.", ["not_found"]);
const unreadablePath = unreadableRequest("The path (an invalid %-escape)");

export const operations: readonly PublicOperation[] = [
  {
    method: "get",
    path: "/integrations/{integration_id}/health",
    operationId: "getIntegrationHealth",
    summary: "Endpoint health of an integration",
    description: [
      "From the attempts the dispatcher made to the integration's URL over the last hour and the last day: success",
      "rate, latency percentiles (p50, p95, p99, linear interpolation) and the last error. An integration whose every",
      "attempt failed for the configured time (default 5 days) is disabled by the gateway (`disabled_at`,",
      "`disabled_reason`): its deliveries wait, without attempts, until it is re-enabled with",
      "`POST /integrations/{integration_id}/enable`.",
    ].join(" "),
    request: { params: IntegrationPath },
    responses: {
      200: jsonResponse("The integration's health.", IntegrationHealthOut),
      400: unreadablePath,
      404: notInAccount,
      422: requestValidation("path: an id that is not a UUID"),
      ...common,
    },
  },
  {
    method: "post",
    path: "/integrations/{integration_id}/enable",
    operationId: "enableIntegration",
    summary: "Re-enable an integration the gateway disabled",
    description: [
      "After fixing the endpoint. The deliveries that waited are sent again at once, each with a fresh budget of",
      "automatic attempts (X-PT-Attempt counts on). An integration that is not disabled is left as it is",
      "(`was_disabled: false`). No body. Audited as `api.integration.enabled`.",
    ].join(" "),
    request: { params: IntegrationPath },
    responses: {
      200: jsonResponse("Enabled; how many deliveries resumed.", IntegrationEnableOut),
      400: unreadablePath,
      404: notInAccount,
      422: requestValidation("path: an id that is not a UUID"),
      ...common,
    },
  },
];
