import type { Db } from "@gw/db";
import { auditAction, recordAudit, type Actor } from "../../audit/audit.ts";
import { RFC_CSV, csvHeader, csvLine, type CsvDialect } from "../../csv/write.ts";

/** The delivery log's CSV columns (GET /deliveries/export and the panel's "Exportar CSV"), in order. */
export const DELIVERY_EXPORT_COLUMNS = [
  "delivery_id",
  "event",
  "status",
  "attempts",
  "created_at",
  "occurred_at",
  "delivered_at",
  "next_attempt_at",
  "last_status_code",
  "last_error_kind",
  "last_error",
  "message_id",
  "integration_id",
  "endpoint_url",
] as const;

/** Rows read per query: each page is one short statement, never a cursor held open for the whole download. */
const EXPORT_PAGE_SIZE = 1_000;

export interface ExportDeliveriesInput {
  accountId: string;
  actor: Actor;
  /** Created at or after. */
  since: Date;
  /** Created strictly before. */
  until: Date;
  status?: string | undefined;
  event?: string | undefined;
  integrationId?: string | undefined;
  /** How the lines are written: the API's RFC 4180 by default, `SPREADSHEET_CSV` for the panel. */
  dialect?: CsvDialect;
  pageSize?: number;
}

interface ExportRow {
  id: string;
  event: string;
  status: string;
  attempt_count: number;
  created_at: Date;
  occurred_at: Date;
  delivered_at: Date | null;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error_kind: string | null;
  last_error: string | null;
  message_id: string | null;
  integration_id: string;
  url: string;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/**
 * The account's deliveries created in [since, until) with the list's filters, as CSV lines (header first), oldest
 * first. Keyset paging on (created_at, id) through the (account_id, created_at, id) index: one bounded query per page,
 * so a month of deliveries is never in memory nor one long-running statement, and the caller writes each page before
 * the next is read (a slow client slows the reads down, it does not pile them up). Cells are formula-safe
 * (`csvLine`). The export is audited first (`<origin>.deliveries.exported`): `last_error` may echo anything the
 * integrator's endpoint answered. The range is the caller's to bound (REPLAY_MAX_DAYS at the edges).
 */
export async function exportDeliveries(deps: { db: Db }, input: ExportDeliveriesInput): Promise<AsyncIterable<string>> {
  await recordAudit(deps.db.sql, {
    accountId: input.accountId,
    actor: input.actor,
    action: auditAction(input.actor, "deliveries.exported"),
    target: "deliveries",
    details: {
      since: input.since.toISOString(),
      until: input.until.toISOString(),
      status: input.status ?? null,
      event: input.event ?? null,
      integration_id: input.integrationId ?? null,
    },
  });
  const pageSize = input.pageSize ?? EXPORT_PAGE_SIZE;
  const db = deps.db;
  const dialect = input.dialect ?? RFC_CSV;
  return (async function* lines() {
    yield csvHeader(DELIVERY_EXPORT_COLUMNS, dialect);
    let cursor: { at: Date; id: string } = { at: new Date(0), id: "0" };
    for (;;) {
      const { rows } = await db.sql.query<ExportRow>({
        name: "deliveries-export-page",
        text: `SELECT d.id::text AS id, d.event, d.status, d.attempt_count, d.created_at, d.occurred_at, d.delivered_at,
            d.next_attempt_at, d.last_status_code, d.last_error_kind, d.last_error,
            CASE WHEN d.event IN ('message.status', 'message.received') THEN d.body::jsonb -> 'data' ->> 'message_id' END
              AS message_id,
            d.integration_id::text AS integration_id, i.url
          FROM deliveries d JOIN integrations i ON i.id = d.integration_id
          WHERE d.account_id = $1::uuid AND d.created_at >= $2 AND d.created_at < $3
            AND ($4::text IS NULL OR d.status = $4) AND ($5::text IS NULL OR d.event = $5)
            AND ($6::uuid IS NULL OR d.integration_id = $6)
            AND (d.created_at, d.id) > ($7::timestamptz, $8::bigint)
          ORDER BY d.created_at, d.id LIMIT $9`,
        values: [
          input.accountId,
          input.since,
          input.until,
          input.status ?? null,
          input.event ?? null,
          input.integrationId ?? null,
          cursor.at,
          cursor.id,
          pageSize,
        ],
      });
      if (rows.length === 0) return;
      yield rows
        .map((r) =>
          csvLine(
            [
              Number(r.id),
              r.event,
              r.status,
              r.attempt_count,
              iso(r.created_at),
              iso(r.occurred_at),
              iso(r.delivered_at),
              iso(r.next_attempt_at),
              r.last_status_code,
              r.last_error_kind,
              r.last_error,
              r.message_id,
              r.integration_id,
              r.url,
            ],
            dialect,
          ),
        )
        .join("");
      const last = rows.at(-1);
      if (!last || rows.length < pageSize) return;
      cursor = { at: last.created_at, id: last.id };
    }
  })();
}
