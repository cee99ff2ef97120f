import { IntegrationListOut, IntegrationsQuery, jsonResponse, requestValidation } from "@gw/contracts";
import { listIntegrations } from "@gw/core/accounts";
import { integrationOut } from "../integration-views.ts";
import { defineRoute } from "../define-route.ts";

/** GET /public/v1/integrations (issue 29): the account's integrations, as the panel's Integrações lists them. */
export const { register, operations } = defineRoute({
  method: "get",
  path: "/integrations",
  operationId: "listIntegrations",
  scope: "integrations:manage",
  summary: "Integrations",
  description:
    "The account's webhook integrations, oldest first, without their signing secrets. Repeat with `cursor=next_cursor` until it is null.",
  request: { query: IntegrationsQuery },
  responses: {
    200: jsonResponse("One page of integrations.", IntegrationListOut),
    422: requestValidation("query"),
  },
  async handler({ accountId, query }, deps) {
    const page = await listIntegrations(deps, {
      accountId,
      active: query.active,
      limit: query.limit,
      cursor: query.cursor,
    });
    return { integrations: page.integrations.map(integrationOut), next_cursor: page.next_cursor };
  },
});
