import type { Router } from "express";
import { TemplatesQuery, parseRequest } from "@gw/contracts";
import { templateCatalogue, type CatalogueCache } from "@gw/core";
import type { Db } from "@gw/db";
import { authOf } from "../../http/auth.ts";

/** GET /public/v1/templates (spec 4.4). */
export function register(router: Router, deps: { db: Db; catalogue: CatalogueCache }): void {
  router.get("/templates", async (req, res) => {
    const { accountId } = authOf(req);
    const query = parseRequest(TemplatesQuery, "query", req.query);
    res.json({ success: true, data: { templates: await templateCatalogue(deps, accountId, query) } });
  });
}
