import type { Router } from "express";
import {
  RequestValidationError,
  WindowOut,
  WindowPath,
  WindowQuery,
  internalError,
  jsonResponse,
  requestValidation,
  tooManyRequests,
  unauthorized,
  unreadableRequest,
  type PublicOperation,
  parseRequest,
} from "@gw/contracts";
import { windowStatus, type AccountDirectory } from "@gw/core";
import type { Db } from "@gw/db";
import { authOf } from "../../http/auth.ts";

/** GET /public/v1/window/{to} (spec 4.3). */
export function register(router: Router, deps: { db: Db; directory: AccountDirectory }): void {
  router.get("/window/:to", async (req, res) => {
    const { accountId } = authOf(req);
    const path = parseRequest(WindowPath, "path", req.params);
    const query = parseRequest(WindowQuery, "query", req.query);
    const window = await windowStatus(deps, { accountId, to: path.to, phoneNumberId: query.phone_number_id });
    // Spec 4.3 lists only 401/422/429: a number that is not the account's is an invalid query value.
    if (!window) {
      throw new RequestValidationError([
        {
          loc: ["query", "phone_number_id"],
          msg: "O número não está conectado a esta conta.",
          type: "value_error",
          input: query.phone_number_id,
        },
      ]);
    }
    res.json({ success: true, data: window });
  });
}

export const operations: readonly PublicOperation[] = [
  {
    method: "get",
    path: "/window/{to}",
    operationId: "getWindow",
    summary: "Is the 24-hour window open",
    description:
      "Counts from the last time the CONTACT wrote. A contact that never wrote yields `open: false` (not an error), and so does an account without any business number.",
    request: { params: WindowPath, query: WindowQuery },
    responses: {
      200: jsonResponse("Window state of the contact on the business number.", WindowOut),
      400: unreadableRequest("The path (an invalid %-escape)"),
      401: unauthorized,
      422: requestValidation("path or query; also a `phone_number_id` that is not one of the account's numbers"),
      429: tooManyRequests(["api_rate_limited"]),
      500: internalError,
    },
  },
];
