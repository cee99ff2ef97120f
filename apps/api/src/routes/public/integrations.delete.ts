import { IntegrationDeleteOut, IntegrationPath, jsonResponse } from "@gw/contracts";
import { deleteIntegration } from "@gw/core/accounts";
import { integrationPathRefusals, notInAccount } from "../integration-views.ts";
import { defineRoute } from "../define-route.ts";

/** DELETE /public/v1/integrations/{integration_id} (issue 29). */
export const { register, operations } = defineRoute({
  method: "delete",
  path: "/integrations/{integration_id}",
  operationId: "deleteIntegration",
  scope: "integrations:manage",
  summary: "Delete an integration",
  description: [
    "The integration and its deliveries (with their attempts) are removed: pending ones are never attempted, and the",
    "deliveries list, the export and replays no longer find them. To stop deliveries for a while, PATCH `active:",
    "false` instead. No body. Audited as `api.integration.deleted`.",
  ].join(" "),
  request: { params: IntegrationPath },
  responses: {
    200: jsonResponse("Deleted.", IntegrationDeleteOut),
    ...integrationPathRefusals,
  },
  async handler({ accountId, actor, params }, deps) {
    const deleted = await deleteIntegration(deps, { accountId, integrationId: params.integration_id, actor });
    if (!deleted) throw notInAccount();
    return { id: deleted.id, deleted: true as const, deliveries_removed: deleted.deliveriesRemoved };
  },
});
