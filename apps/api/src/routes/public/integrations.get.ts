import { IntegrationOut, IntegrationPath, jsonResponse } from "@gw/contracts";
import { getIntegration } from "@gw/core/accounts";
import { integrationOut, integrationPathRefusals, notInAccount } from "../integration-views.ts";
import { defineRoute } from "../define-route.ts";

/** GET /public/v1/integrations/{integration_id} (issue 29): one integration, without its secret. */
export const { register, operations } = defineRoute({
  method: "get",
  path: "/integrations/{integration_id}",
  operationId: "getIntegration",
  scope: "integrations:manage",
  summary: "One integration",
  description: "Its URL, events, state and signature scheme. The signing secret is never shown here.",
  request: { params: IntegrationPath },
  responses: {
    200: jsonResponse("The integration.", IntegrationOut),
    ...integrationPathRefusals,
  },
  async handler({ accountId, params }, deps) {
    const integration = await getIntegration(deps, { accountId, integrationId: params.integration_id });
    if (!integration) throw notInAccount();
    return integrationOut(integration);
  },
});
