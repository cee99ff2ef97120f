import type { Db, Sql } from "@gw/db";
import type { CampaignStatus, RecipientOutcome } from "@gw/contracts";
import type { NumberThroughput } from "../throughput/throughput.ts";
import { loadRateCard, rateCardOf, type RateCard } from "../pricing/rate-card.ts";
import { estimateOf, pricedProgressOf, type CampaignCostEstimate, type CampaignRunningCost } from "./costs.ts";
import {
  EMPTY_PROGRESS,
  ERROR_CODE_SQL,
  ERROR_MESSAGE_SQL,
  OUTCOME_SQL,
  campaignNotFound,
  type CampaignProgress,
} from "./model.ts";
import type { RejectedRow } from "./recipients.ts";

export interface CampaignView {
  id: string;
  name: string;
  status: CampaignStatus;
  phone_number_id: string;
  template: string;
  language: string;
  template_category: string | null;
  start_at: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  cancelled_at: string | null;
  /** Why the gateway paused it by itself (a health event from Meta); null when a person paused it or not paused. */
  pause_reason: string | null;
  total_rows: number;
  accepted_recipients: number;
  rejected_count: number;
  progress: CampaignProgress;
  rate_per_second: number;
  eta_seconds: number | null;
  estimated_completion_at: string | null;
  estimated_cost: CampaignCostEstimate;
}

export interface CampaignDetail extends CampaignView {
  rejected_rows: RejectedRow[];
  running_cost: CampaignRunningCost;
}

export interface RecipientView {
  id: number;
  row: number;
  to: string;
  client_ref: string | null;
  status: RecipientOutcome;
  message_id: string | null;
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  updated_at: string;
}

export interface CampaignReadDeps {
  db: Db;
  /** For the rate in force (a number backing off after 130429); the configured rate without it. */
  throughput?: NumberThroughput | undefined;
}

export interface CampaignRow {
  id: string;
  account_id: string;
  name: string;
  status: CampaignStatus;
  phone_number_id: string;
  template_name: string;
  template_language: string;
  template_category: string | null;
  start_at: Date | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  cancelled_at: Date | null;
  pause_reason: string | null;
  total_rows: number;
  accepted_recipients: number;
  rejected_count: number;
  rate: number | null;
}

const CAMPAIGN_COLUMNS = `c.id, c.account_id, c.name, c.status, c.phone_number_id, c.template_name, c.template_language,
  c.template_category, c.start_at, c.created_at, c.started_at, c.completed_at, c.cancelled_at, c.pause_reason,
  c.total_rows, c.accepted_recipients, COALESCE(jsonb_array_length(c.rejected_rows), 0) AS rejected_count,
  b.messaging_rate_per_second AS rate`;
const CAMPAIGN_FROM = `campaigns c LEFT JOIN business_numbers b ON b.phone_number_id = c.phone_number_id`;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

async function progressOf(sql: Sql, campaignIds: readonly string[]): Promise<Map<string, CampaignProgress>> {
  const { rows } = await sql.query<{ campaign_id: string; outcome: RecipientOutcome; count: number }>({
    name: "campaign-progress",
    text: `SELECT r.campaign_id, ${OUTCOME_SQL} AS outcome, count(*)::int AS count
      FROM campaign_recipients r LEFT JOIN messages m ON m.wamid = r.wamid
      WHERE r.campaign_id = ANY($1::uuid[]) GROUP BY 1, 2`,
    values: [campaignIds],
  });
  const progress = new Map<string, CampaignProgress>();
  for (const row of rows) {
    const counts = progress.get(row.campaign_id) ?? { ...EMPTY_PROGRESS };
    counts[row.outcome] += row.count;
    progress.set(row.campaign_id, counts);
  }
  return progress;
}

async function rateFactor(deps: CampaignReadDeps, phoneNumberId: string): Promise<number> {
  if (!deps.throughput) return 1;
  try {
    return (await deps.throughput.state(phoneNumberId)).factor;
  } catch {
    return 1;
  }
}

/**
 * Views of campaigns of one account. `known` carries what the caller already read (the detail's progress, read with
 * its pricing, and the account's rate card).
 */
async function toViews(
  deps: CampaignReadDeps,
  rows: readonly CampaignRow[],
  known: { progress?: Map<string, CampaignProgress>; card?: RateCard } = {},
): Promise<CampaignView[]> {
  const accountId = rows[0]?.account_id;
  const [progress, card] = await Promise.all([
    known.progress ??
      progressOf(
        deps.db.sql,
        rows.map((row) => row.id),
      ),
    known.card ?? (accountId ? loadRateCard(deps.db.sql, { accountId }) : Promise.resolve(rateCardOf([]))),
  ]);
  const factors = new Map<string, number>();
  for (const row of rows)
    if (!factors.has(row.phone_number_id))
      factors.set(row.phone_number_id, await rateFactor(deps, row.phone_number_id));
  const now = Date.now();
  return rows.map((row) => {
    const counts = progress.get(row.id) ?? { ...EMPTY_PROGRESS };
    const headroom = deps.throughput?.policy.headroom ?? 0;
    const rate = Math.max(0.1, (row.rate ?? 0) * (factors.get(row.phone_number_id) ?? 1) * (1 - headroom));
    const remaining = counts.queued + counts.sending;
    const live =
      row.status === "running" || row.status === "scheduled" || row.status === "paused" || row.status === "draft";
    const eta = live && remaining > 0 ? Math.ceil(remaining / rate) : null;
    const from = row.status === "scheduled" && row.start_at ? Math.max(now, row.start_at.getTime()) : now;
    return {
      id: row.id,
      name: row.name,
      status: row.status,
      phone_number_id: row.phone_number_id,
      template: row.template_name,
      language: row.template_language,
      template_category: row.template_category,
      start_at: iso(row.start_at),
      created_at: row.created_at.toISOString(),
      started_at: iso(row.started_at),
      completed_at: iso(row.completed_at),
      cancelled_at: iso(row.cancelled_at),
      pause_reason: row.status === "paused" ? row.pause_reason : null,
      total_rows: row.total_rows,
      accepted_recipients: row.accepted_recipients,
      rejected_count: row.rejected_count,
      progress: counts,
      rate_per_second: Math.round(rate * 100) / 100,
      eta_seconds: eta,
      estimated_completion_at:
        eta !== null && (row.status === "running" || row.status === "scheduled")
          ? new Date(from + eta * 1000).toISOString()
          : null,
      estimated_cost: estimateOf(card, row, now),
    };
  });
}

export async function loadCampaign(db: Db, accountId: string, campaignId: string): Promise<CampaignRow | null> {
  const { rows } = await db.sql.query<CampaignRow>({
    name: "campaign-by-id",
    text: `SELECT ${CAMPAIGN_COLUMNS} FROM ${CAMPAIGN_FROM} WHERE c.id = $1::uuid AND c.account_id = $2::uuid`,
    values: [campaignId, accountId],
  });
  return rows[0] ?? null;
}

/** A campaign with its progress, ETA, estimated and running cost, and the rows its validation refused. */
export async function getCampaign(
  deps: CampaignReadDeps,
  input: { accountId: string; campaignId: string },
): Promise<CampaignDetail> {
  const row = await loadCampaign(deps.db, input.accountId, input.campaignId);
  if (!row) throw campaignNotFound();
  const card = await loadRateCard(deps.db.sql, { accountId: row.account_id });
  const { progress, running } = await pricedProgressOf(deps.db.sql, card, row.id);
  const [view] = await toViews(deps, [row], { progress: new Map([[row.id, progress]]), card });
  const { rows } = await deps.db.sql.query<{ rejected: RejectedRow[] | null }>({
    name: "campaign-rejected-rows",
    text: `SELECT rejected_rows AS rejected FROM campaigns WHERE id = $1::uuid`,
    values: [row.id],
  });
  if (!view) throw campaignNotFound();
  return { ...view, rejected_rows: rows[0]?.rejected ?? [], running_cost: running };
}

/**
 * The account's campaigns, newest first, only those in `status` when given; `beforeId` is the previous page's
 * `next_before_id`.
 */
export async function listCampaigns(
  deps: CampaignReadDeps,
  input: { accountId: string; limit: number; beforeId?: string | undefined; status?: CampaignStatus | undefined },
): Promise<{ campaigns: CampaignView[]; next_before_id: string | null }> {
  const limit = Math.min(Math.max(Math.trunc(input.limit), 1), 200);
  const { rows } = await deps.db.sql.query<CampaignRow>({
    name: "campaigns-list",
    text: `SELECT ${CAMPAIGN_COLUMNS} FROM ${CAMPAIGN_FROM}
      WHERE c.account_id = $1::uuid AND ($4::text IS NULL OR c.status = $4)
        AND ($2::uuid IS NULL OR (c.created_at, c.id) < (SELECT created_at, id FROM campaigns WHERE id = $2::uuid AND account_id = $1::uuid))
      ORDER BY c.created_at DESC, c.id DESC LIMIT $3`,
    values: [input.accountId, input.beforeId ?? null, limit + 1, input.status ?? null],
  });
  const page = rows.slice(0, limit);
  return {
    campaigns: await toViews(deps, page),
    next_before_id: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
  };
}

interface RecipientRow {
  id: string;
  row_number: number;
  contact: string;
  client_ref: string | null;
  outcome: RecipientOutcome;
  wamid: string | null;
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  updated_at: Date;
}

const RECIPIENTS_PAGE = `SELECT r.id, r.row_number, r.contact, r.client_ref, ${OUTCOME_SQL} AS outcome, r.wamid,
    ${ERROR_CODE_SQL} AS error_code, ${ERROR_MESSAGE_SQL} AS error_message, r.attempts, GREATEST(r.updated_at, m.status_at) AS updated_at
  FROM campaign_recipients r LEFT JOIN messages m ON m.wamid = r.wamid
  WHERE r.campaign_id = $1::uuid AND r.id > $2 AND ($3::text IS NULL OR ${OUTCOME_SQL} = $3)
  ORDER BY r.id LIMIT $4`;

export function toRecipientView(row: RecipientRow): RecipientView {
  return {
    id: Number(row.id),
    row: row.row_number,
    to: row.contact,
    client_ref: row.client_ref,
    status: row.outcome,
    message_id: row.wamid,
    error_code: row.error_code,
    error_message: row.error_message,
    attempts: row.attempts,
    updated_at: row.updated_at.toISOString(),
  };
}

export async function recipientsPage(
  db: Db,
  campaignId: string,
  afterId: number,
  status: RecipientOutcome | null,
  limit: number,
): Promise<RecipientRow[]> {
  const { rows } = await db.sql.query<RecipientRow>({
    name: "campaign-recipients-page",
    text: RECIPIENTS_PAGE,
    values: [campaignId, afterId, status, limit],
  });
  return rows;
}

export async function ensureCampaign(db: Db, accountId: string, campaignId: string): Promise<void> {
  const { rowCount } = await db.sql.query({
    name: "campaign-exists",
    text: `SELECT 1 FROM campaigns WHERE id = $1::uuid AND account_id = $2::uuid`,
    values: [campaignId, accountId],
  });
  if (rowCount !== 1) throw campaignNotFound();
}

/** Each recipient's outcome with its error code, in list order; `afterId` is the previous page's `next_after_id`. */
export async function listCampaignRecipients(
  deps: { db: Db },
  input: {
    accountId: string;
    campaignId: string;
    status?: RecipientOutcome | undefined;
    limit: number;
    afterId?: number | undefined;
  },
): Promise<{ recipients: RecipientView[]; next_after_id: number | null }> {
  await ensureCampaign(deps.db, input.accountId, input.campaignId);
  const limit = Math.min(Math.max(Math.trunc(input.limit), 1), 1000);
  const rows = await recipientsPage(deps.db, input.campaignId, input.afterId ?? 0, input.status ?? null, limit + 1);
  const page = rows.slice(0, limit).map(toRecipientView);
  return { recipients: page, next_after_id: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
}

/** Campaigns sending now, fleet-wide: how many, their accepted recipients, and how many of those are still to go. */
export interface RunningCampaignsProgress {
  campaigns: number;
  recipients: number;
  /** Queued or being sent: what the campaigns have left. */
  remaining: number;
}

/**
 * The progress of every running campaign together, for the campaign worker's gauges: one statement, the campaigns by
 * their `status` index and the recipients left by the `(campaign_id, status, id)` index (what is left, not what is
 * done: the count shrinks as the campaigns progress).
 */
export async function runningCampaignsProgress(deps: { db: Db }): Promise<RunningCampaignsProgress> {
  const { rows } = await deps.db.sql.query<RunningCampaignsProgress>({
    name: "running-campaigns-progress",
    text: `SELECT count(*)::int AS campaigns, COALESCE(sum(c.accepted_recipients), 0)::bigint::float8 AS recipients,
        COALESCE(sum((SELECT count(*) FROM campaign_recipients r
          WHERE r.campaign_id = c.id AND r.status IN ('queued', 'sending'))), 0)::float8 AS remaining
      FROM campaigns c WHERE c.status = 'running'`,
  });
  return rows[0] ?? { campaigns: 0, recipients: 0, remaining: 0 };
}
