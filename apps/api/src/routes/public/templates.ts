import type { Router } from "express";
import { TemplatesQuery, parseRequest } from "@gw/contracts";
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
