import {
  CSV_EXPORT_FORMAT,
  DELIVERY_RANGE_MAX_DAYS,
  DeliveryExportQuery,
  checkRange,
  requestValidation,
} from "@gw/contracts";
import { DELIVERY_EXPORT_COLUMNS, exportDeliveries } from "@gw/core/deliveries";
import { defineCsvExport } from "../define-route.ts";

/**
 * GET /public/v1/deliveries/export: the delivery log of a time range as a CSV file, streamed. Registered before
 * deliveries.ts, whose /deliveries/:delivery_id would read "export" as an id.
 */
export const { register, operations } = defineCsvExport({
  path: "/deliveries/export",
  operationId: "exportDeliveries",
  scope: "messages:read",
  summary: "The delivery log of a time range as CSV",
  description: `Streamed, one line per delivery created in [\`since\`, \`until\`) (\`until\` absent: now; at most ${DELIVERY_RANGE_MAX_DAYS} days), oldest first, with the deliveries list's filters. Columns: ${DELIVERY_EXPORT_COLUMNS.join(", ")}. ${CSV_EXPORT_FORMAT} Audited (\`api.deliveries.exported\`).`,
  request: { query: DeliveryExportQuery },
  responses: {
    422: requestValidation("query; also `since` not before `until` or a range over 31 days (`value_error`)"),
  },
  async handler({ accountId, actor, query }, deps) {
    // Absent, `until` is now (issue 29).
    const range = { since: query.since, until: query.until ?? new Date() };
    checkRange("query", range);
    const lines = await exportDeliveries(deps, {
      accountId,
      actor,
      since: range.since,
      until: range.until,
      status: query.status,
      event: query.event,
      integrationId: query.integration_id,
    });
    return {
      filename: `entregas-${query.since.toISOString().slice(0, 10)}.csv`,
      lines,
      log: { download: "deliveries" },
    };
  },
});
