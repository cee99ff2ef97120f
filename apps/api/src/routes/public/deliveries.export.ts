import type { Router } from "express";
import {
  CSV_EXPORT_FORMAT,
  DELIVERY_RANGE_MAX_DAYS,
  DeliveryExportQuery,
  checkRange,
  internalError,
  parseRequest,
  requestValidation,
  tooManyRequests,
  unauthorized,
  type PublicOperation,
} from "@gw/contracts";
import { DELIVERY_EXPORT_COLUMNS, exportDeliveries } from "@gw/core";
import { sendCsv } from "@gw/http";
import type { ApiDeps } from "../../container.ts";
import { apiActor, authOf } from "../../http/auth.ts";

/**
 * GET /public/v1/deliveries/export: the delivery log of a time range as a CSV file, streamed. Registered before
 * deliveries.ts, whose /deliveries/:delivery_id would read "export" as an id.
 */
export function register(router: Router, deps: ApiDeps): void {
  router.get("/deliveries/export", async (req, res) => {
    const { accountId } = authOf(req);
    const query = parseRequest(DeliveryExportQuery, "query", req.query);
    checkRange("query", query);
    const lines = await exportDeliveries(
      { db: deps.db },
      {
        accountId,
        actor: apiActor(req),
        since: query.since,
        until: query.until,
        status: query.status,
        event: query.event,
        integrationId: query.integration_id,
      },
    );
    await sendCsv(
      res,
      { filename: `entregas-${query.since.toISOString().slice(0, 10)}.csv`, lines, log: { download: "deliveries" } },
      deps.logger,
    );
  });
}

export const operations: readonly PublicOperation[] = [
  {
    method: "get",
    path: "/deliveries/export",
    operationId: "exportDeliveries",
    summary: "The delivery log of a time range as CSV",
    description: `Streamed, one line per delivery created in [\`since\`, \`until\`) (at most ${DELIVERY_RANGE_MAX_DAYS} days), oldest first, with the deliveries list's filters. Columns: ${DELIVERY_EXPORT_COLUMNS.join(", ")}. ${CSV_EXPORT_FORMAT} Audited (\`api.deliveries.exported\`).`,
    request: { query: DeliveryExportQuery },
    responses: {
      200: {
        description: "The CSV file.",
        content: { "text/csv": { schema: { type: "string" } } },
      },
      422: requestValidation("query; also `since` not before `until` or a range over 31 days (`value_error`)"),
      401: unauthorized,
      429: tooManyRequests(["api_rate_limited"]),
      500: internalError,
    },
  },
];
