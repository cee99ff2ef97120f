import { TemplateCatalogueOut, TemplatesQuery, errorResponse, jsonResponse, requestValidation } from "@gw/contracts";
import { templateCatalogue } from "@gw/core/templates";
import { defineRoute } from "../define-route.ts";

/** GET /public/v1/templates (spec 4.4). */
export const { register, operations } = defineRoute({
  method: "get",
  path: "/templates",
  operationId: "listTemplates",
  scope: "messages:read",
  summary: "Template catalogue",
  description:
    "Only approved templates by default; `status=ALL` returns every status. `body.variables_count` is the number of entries the send's `variables` must have.",
  request: { query: TemplatesQuery },
  responses: {
    200: jsonResponse("The catalogue.", TemplateCatalogueOut),
    400: errorResponse("Invalid status filter, or no connected business number.", [
      "invalid_template_status",
      "no_connected_number",
    ]),
    422: requestValidation("query"),
    503: errorResponse("The full catalogue could not be obtained from the provider.", ["templates_unavailable"]),
  },
  async handler({ accountId, query }, deps) {
    const templates = await templateCatalogue(deps, {
      accountId,
      status: query.status,
      phoneNumberId: query.phone_number_id,
    });
    return { templates };
  },
});
