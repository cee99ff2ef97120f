import type { Router } from "express";
import { WindowPath, WindowQuery, parseRequest } from "@gw/contracts";
import { windowStatus } from "@gw/core";
import type { Db } from "@gw/db";
import { authOf } from "../../http/auth.ts";

/** GET /public/v1/window/{to} (spec 4.3). */
export function register(router: Router, deps: { db: Db }): void {
  router.get("/window/:to", async (req, res) => {
    const { accountId } = authOf(req);
    const path = parseRequest(WindowPath, "path", req.params);
    const query = parseRequest(WindowQuery, "query", req.query);
    res.json({ success: true, data: await windowStatus(deps.db, accountId, path.to, query.phone_number_id) });
  });
}
