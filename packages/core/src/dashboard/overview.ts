import type { Db } from "@gw/db";

const DAY_MS = 24 * 3600_000;
/** An integration is "failing now" when an attempt of it failed within this time and was not yet made good. */
const FAILING_WINDOW_MS = 3600_000;
const FAILING_LIMIT = 20;

export interface FailingIntegration {
  integration_id: string;
  url: string;
  active: boolean;
  /** Deliveries waiting for a retry after a failed attempt. */
  retrying: number;
  /** Deliveries that ran out of attempts (dead letters) within the window. */
  dead_lettered: number;
  last_failure_at: string;
  last_error_kind: string | null;
  last_status_code: number | null;
}

export interface AccountOverview {
  /** The start of the 24 h every count below covers (except `dead_letters` and `unread_notices`). */
  since: string;
  sends: { total: number; by_status: Record<string, number> };
  /** Webhook deliveries created in the 24 h, by their status now. */
  deliveries: { total: number; by_status: Record<string, number> };
  /** delivered / (delivered + failed) of those deliveries; null when none has finished. */
  success_rate: number | null;
  failing_integrations: FailingIntegration[];
  /** Every dead-lettered delivery of the account (status failed), whatever its age. */
  dead_letters: number;
  /** Template notices this user has not marked read. */
  unread_notices: number;
}

interface CountsRow {
  sends: Record<string, number>;
  deliveries: Record<string, number>;
  dead_letters: number;
  unread_notices: number;
}

// One round trip, each count on an index:
// - sends: messages (account_id, created_at);
// - deliveries: there is no (account_id, created_at) index, so the newest delivery older than 24 h is found by
//   walking (account_id, id) backwards (as many rows as the day holds), and the day is then an id range (ids
//   and created_at grow together; a row committed out of order right at the boundary may be left out);
// - dead letters: an index-only count on (account_id, status, id);
// - unread notices: template_notices (account_id, id) against the reads' primary key (notice_id, user_id).
const COUNTS = `
SELECT
  (SELECT coalesce(json_object_agg(status, n), '{}'::json) FROM (
     SELECT status, count(*)::int AS n FROM messages
     WHERE account_id = $1::uuid AND created_at >= $2 GROUP BY status) s) AS sends,
  (SELECT coalesce(json_object_agg(status, n), '{}'::json) FROM (
     SELECT status, count(*)::int AS n FROM deliveries
     WHERE account_id = $1::uuid AND created_at >= $2
       AND id > coalesce((SELECT id FROM deliveries WHERE account_id = $1::uuid AND created_at < $2
                          ORDER BY id DESC LIMIT 1), 0)
     GROUP BY status) d) AS deliveries,
  (SELECT count(*)::int FROM deliveries WHERE account_id = $1::uuid AND status = 'failed') AS dead_letters,
  (SELECT count(*)::int FROM template_notices n
     WHERE n.account_id = $1::uuid
       AND NOT EXISTS (SELECT 1 FROM template_notice_reads r WHERE r.notice_id = n.id AND r.user_id = $3::uuid)
  ) AS unread_notices`;

interface FailingRow {
  integration_id: string;
  url: string;
  active: boolean;
  retrying: number;
  dead_lettered: number;
  last_failure_at: Date;
  last_error_kind: string | null;
  last_status_code: number | null;
}

// Failing now: deliveries whose last attempt failed within the window and that are still being retried
// (pending, or delivering a retry), or that ran out of attempts within it. The retrying ones are read through
// (account_id, status, id) — the pending set is the queue, small by nature; the dead letters of the last hour
// through (status, updated_at). `updated_at` is written by every attempt's result.
const FAILING = `
SELECT d.integration_id, i.url, i.active,
  count(*) FILTER (WHERE d.status <> 'failed')::int AS retrying,
  count(*) FILTER (WHERE d.status = 'failed')::int AS dead_lettered,
  max(d.updated_at) AS last_failure_at,
  (array_agg(d.last_error_kind ORDER BY d.updated_at DESC))[1] AS last_error_kind,
  (array_agg(d.last_status_code ORDER BY d.updated_at DESC))[1] AS last_status_code
FROM (
  SELECT integration_id, status, updated_at, last_error_kind, last_status_code FROM deliveries
  WHERE account_id = $1::uuid AND status IN ('pending', 'delivering') AND attempt_count > 0
    AND last_error_kind IS NOT NULL AND updated_at >= $2
  UNION ALL
  SELECT integration_id, status, updated_at, last_error_kind, last_status_code FROM deliveries
  WHERE status = 'failed' AND updated_at >= $2 AND account_id = $1::uuid
) d
JOIN integrations i ON i.id = d.integration_id
GROUP BY d.integration_id, i.url, i.active
ORDER BY last_failure_at DESC
LIMIT ${FAILING_LIMIT}`;

const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, n) => sum + n, 0);

/** The panel's overview of one account for one user: the last 24 h of sends and deliveries, and what needs care. */
export async function accountOverview(
  deps: { db: Db },
  input: { accountId: string; userId: string; now?: Date | undefined },
): Promise<AccountOverview> {
  const now = input.now ?? new Date();
  const since = new Date(now.getTime() - DAY_MS);
  const [counts, failing] = await Promise.all([
    deps.db.sql.query<CountsRow>({
      name: "overview-counts",
      text: COUNTS,
      values: [input.accountId, since, input.userId],
    }),
    deps.db.sql.query<FailingRow>({
      name: "overview-failing-integrations",
      text: FAILING,
      values: [input.accountId, new Date(now.getTime() - FAILING_WINDOW_MS)],
    }),
  ]);
  const row = counts.rows[0] ?? { sends: {}, deliveries: {}, dead_letters: 0, unread_notices: 0 };
  const delivered = row.deliveries.delivered ?? 0;
  const failed = row.deliveries.failed ?? 0;
  return {
    since: since.toISOString(),
    sends: { total: total(row.sends), by_status: row.sends },
    deliveries: { total: total(row.deliveries), by_status: row.deliveries },
    success_rate: delivered + failed === 0 ? null : delivered / (delivered + failed),
    failing_integrations: failing.rows.map((f) => ({
      integration_id: f.integration_id,
      url: f.url,
      active: f.active,
      retrying: f.retrying,
      dead_lettered: f.dead_lettered,
      last_failure_at: f.last_failure_at.toISOString(),
      last_error_kind: f.last_error_kind,
      last_status_code: f.last_status_code,
    })),
    dead_letters: row.dead_letters,
    unread_notices: row.unread_notices,
  };
}
