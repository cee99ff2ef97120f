import { IntegrationEnableOut, IntegrationHealthOut, IntegrationPath, jsonResponse } from "@gw/contracts";
import { enableIntegration, endpointHealth } from "@gw/core/deliveries";
import { integrationPathRefusals, notInAccount } from "../integration-views.ts";
import { defineRoute, routeModule } from "../define-route.ts";

/** Issue 21, item 3: an integration's endpoint health, and the manual re-enable after the gateway disabled it. */
export const { register, operations } = routeModule(
  defineRoute({
    method: "get",
    path: "/integrations/{integration_id}/health",
    operationId: "getIntegrationHealth",
    scope: "integrations:manage",
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
      ...integrationPathRefusals,
    },
    async handler({ accountId, params }, deps) {
      const health = await endpointHealth(deps, { accountId, integrationId: params.integration_id });
      if (!health) throw notInAccount();
      return health;
    },
  }),
  defineRoute({
    method: "post",
    path: "/integrations/{integration_id}/enable",
    operationId: "enableIntegration",
    scope: "integrations:manage",
    summary: "Re-enable an integration the gateway disabled",
    description: [
      "After fixing the endpoint. The deliveries that waited are sent again at once, each with a fresh budget of",
      "automatic attempts (X-PT-Attempt counts on). An integration that is not disabled is left as it is",
      "(`was_disabled: false`). No body. Audited as `api.integration.enabled`.",
    ].join(" "),
    request: { params: IntegrationPath },
    responses: {
      200: jsonResponse("Enabled; how many deliveries resumed.", IntegrationEnableOut),
      ...integrationPathRefusals,
    },
    async handler({ accountId, actor, params }, deps) {
      const result = await enableIntegration(deps, { accountId, integrationId: params.integration_id, actor });
      return { integration_id: result.integrationId, was_disabled: result.wasDisabled, resumed: result.resumed };
    },
  }),
);
