import type { Router } from "express";
import {
  TemplateCatalogueOut,
  TemplatesQuery,
  errorResponse,
  internalError,
  jsonResponse,
  requestValidation,
  tooManyRequests,
  unauthorized,
  type PublicOperation,
  parseRequest,
} from "@gw/contracts";
import { templateCatalogue, type AccountDirectory, type TemplateCache } from "@gw/core";
import { authOf } from "../../http/auth.ts";

/** GET /public/v1/templates (spec 4.4). */
export function register(router: Router, deps: { directory: AccountDirectory; templates: TemplateCache }): void {
  router.get("/templates", async (req, res) => {
    const { accountId } = authOf(req);
    const query = parseRequest(TemplatesQuery, "query", req.query);
    res.json({
      success: true,
      data: {
        templates: await templateCatalogue(deps, {
          accountId,
          status: query.status,
          phoneNumberId: query.phone_number_id,
        }),
      },
    });
  });
}

export const operations: readonly PublicOperation[] = [
  {
    method: "get",
    path: "/templates",
    operationId: "listTemplates",
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
      401: unauthorized,
      422: requestValidation("query"),
      429: tooManyRequests(["api_rate_limited"]),
      500: internalError,
      503: errorResponse("The full catalogue could not be obtained from the provider.", ["templates_unavailable"]),
    },
  },
];
