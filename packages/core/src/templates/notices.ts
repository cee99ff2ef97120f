import { inTransaction, type Db, type Sql } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { MetaTemplateNotice } from "@gw/meta";
import { auditAction, recordAudit, type Actor } from "../audit/audit.ts";

/**
 * Meta's template notices (message_template_status_update, message_template_quality_update): panel-only, never
 * webhook events of the contract. Stored during the provider webhook's ingestion, for the account whose business
 * numbers are in the notice's WABA; read per panel user.
 */

/** `status`: approved, rejected, paused, disabled...; `quality`: the template's quality score changed. */
export type TemplateNoticeKind = "status" | "quality";
export const TEMPLATE_NOTICE_KINDS: readonly TemplateNoticeKind[] = ["status", "quality"];

export interface TemplateNoticeView {
  id: number;
  kind: TemplateNoticeKind;
  waba_id: string;
  template_id: string | null;
  template_name: string;
  template_language: string | null;
  /** Status notices: Meta's event (APPROVED, REJECTED, PAUSED, DISABLED, FLAGGED...); quality: the new score. */
  event: string;
  /** Meta's reason code when it is not NONE (e.g. INVALID_FORMAT), then its explanation after ": " when it sent one. */
  reason: string | null;
  previous_quality: string | null;
  new_quality: string | null;
  /** When Meta sent it (`entry[].time`), else when the gateway received it. */
  occurred_at: string;
  created_at: string;
  /** Whether this user marked it read. */
  read: boolean;
  read_at: string | null;
}

/** A notice to store, for one account. */
export interface TemplateNoticeInput {
  accountId: string;
  notice: MetaTemplateNotice;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_REASON_LENGTH = 2000;

/** The accounts owning a business number in each WABA (one WABA normally belongs to one account). */
export async function accountsByWaba(sql: Sql, wabaIds: readonly string[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  if (wabaIds.length === 0) return found;
  const { rows } = await sql.query<{ waba_id: string; account_id: string }>({
    name: "accounts-by-waba",
    text: `SELECT DISTINCT waba_id, account_id::text FROM business_numbers WHERE waba_id = ANY($1::text[])
      ORDER BY waba_id, account_id`,
    values: [[...new Set(wabaIds)]],
  });
  for (const row of rows) found.set(row.waba_id, [...(found.get(row.waba_id) ?? []), row.account_id]);
  return found;
}

function reasonOf(notice: MetaTemplateNotice): string | null {
  if (notice.field !== "message_template_status_update") return null;
  const value = notice.value;
  const code = value.reason && value.reason !== "NONE" ? value.reason : null;
  const explanation = value.rejection_info?.reason ?? value.other_info?.description ?? null;
  const text = [code, explanation].filter((part): part is string => Boolean(part)).join(": ");
  return text === "" ? null : text.slice(0, MAX_REASON_LENGTH);
}

// Idempotent: the same notice (account, template, event, scores, Meta's time) is stored once, whether Meta sends it
// again in another payload or an interrupted ingestion applies it again.
const STORE_NOTICES = `
INSERT INTO template_notices (account_id, waba_id, kind, template_id, template_name, template_language, event, reason,
  previous_quality, new_quality, occurred_at)
SELECT DISTINCT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
  $8::text[], $9::text[], $10::text[], $11::timestamptz[])
  AS n (account_id, waba_id, kind, template_id, template_name, template_language, event, reason, previous_quality,
    new_quality, occurred_at)
WHERE NOT EXISTS (
  SELECT 1 FROM template_notices t
  WHERE t.account_id = n.account_id AND t.waba_id = n.waba_id AND t.kind = n.kind AND t.template_name = n.template_name
    AND t.template_language IS NOT DISTINCT FROM n.template_language AND t.event = n.event
    AND t.previous_quality IS NOT DISTINCT FROM n.previous_quality AND t.occurred_at = n.occurred_at)`;

/** Inside the ingestion's transaction: one row per notice and account. Returns how many were new. */
export async function storeTemplateNotices(
  sql: Sql,
  notices: readonly TemplateNoticeInput[],
  receivedAt: Date,
): Promise<number> {
  if (notices.length === 0) return 0;
  const columns: (string | null)[][] = Array.from({ length: 10 }, () => []);
  const occurred: Date[] = [];
  for (const { accountId, notice } of notices) {
    const quality = notice.field === "message_template_quality_update" ? notice.value : null;
    const status = notice.field === "message_template_status_update" ? notice.value : null;
    const row = [
      accountId,
      notice.wabaId,
      quality ? "quality" : "status",
      notice.value.message_template_id ?? null,
      notice.value.message_template_name,
      notice.value.message_template_language ?? null,
      status?.event ?? quality?.new_quality_score ?? "",
      reasonOf(notice),
      quality?.previous_quality_score ?? null,
      quality?.new_quality_score ?? null,
    ];
    row.forEach((value, i) => columns[i]?.push(value));
    occurred.push(notice.time ?? receivedAt);
  }
  const { rowCount } = await sql.query({
    name: "store-template-notices",
    text: STORE_NOTICES,
    values: [...columns, occurred],
  });
  return rowCount ?? 0;
}

interface NoticeRow {
  id: string;
  kind: TemplateNoticeKind;
  waba_id: string;
  template_id: string | null;
  template_name: string;
  template_language: string | null;
  event: string;
  reason: string | null;
  previous_quality: string | null;
  new_quality: string | null;
  occurred_at: Date;
  created_at: Date;
  read_at: Date | null;
}

function view(row: NoticeRow): TemplateNoticeView {
  return {
    id: Number(row.id),
    kind: row.kind,
    waba_id: row.waba_id,
    template_id: row.template_id,
    template_name: row.template_name,
    template_language: row.template_language,
    event: row.event,
    reason: row.reason,
    previous_quality: row.previous_quality,
    new_quality: row.new_quality,
    occurred_at: row.occurred_at.toISOString(),
    created_at: row.created_at.toISOString(),
    read: row.read_at !== null,
    read_at: row.read_at?.toISOString() ?? null,
  };
}

function checkIds(input: { accountId: string; userId: string }): void {
  // The panel passes its session's account and user; anything else names nobody (and must not reach a ::uuid cast).
  if (!UUID.test(input.accountId) || !UUID.test(input.userId))
    throw new ApiError("not_found", { message: "O usuário não foi encontrado nesta conta." });
}

function parseCursor(cursor: string | undefined | null): string | null {
  if (cursor === undefined || cursor === null || cursor === "") return null;
  if (!/^\d{1,18}$/.test(cursor))
    throw new ApiError("bad_request", { message: "O cursor de paginação dos avisos é inválido." });
  return cursor;
}

/**
 * The account's template notices, newest first, with whether `userId` read each. `cursor` is the `next_cursor` of
 * the page before; `unreadOnly` keeps the ones this user has not read; `kind` keeps one kind. A user of another
 * account sees nothing.
 */
export async function listTemplateNotices(
  deps: { db: Db },
  input: {
    accountId: string;
    userId: string;
    unreadOnly?: boolean | undefined;
    kind?: TemplateNoticeKind | undefined;
    cursor?: string | null | undefined;
    limit: number;
  },
): Promise<{ notices: TemplateNoticeView[]; next_cursor: string | null }> {
  checkIds(input);
  const before = parseCursor(input.cursor);
  const limit = Math.max(1, Math.min(200, Math.trunc(input.limit)));
  const { rows } = await deps.db.sql.query<NoticeRow>({
    name: "list-template-notices",
    text: `SELECT n.id::text, n.kind, n.waba_id, n.template_id, n.template_name, n.template_language, n.event, n.reason,
        n.previous_quality, n.new_quality, n.occurred_at, n.created_at, r.read_at
      FROM template_notices n
      LEFT JOIN template_notice_reads r ON r.notice_id = n.id AND r.user_id = $2::uuid
      WHERE n.account_id = $1::uuid AND ($3::bigint IS NULL OR n.id < $3::bigint)
        AND EXISTS (SELECT 1 FROM panel_users u WHERE u.id = $2::uuid AND u.account_id = $1::uuid)
        AND (NOT $4::boolean OR r.notice_id IS NULL) AND ($5::text IS NULL OR n.kind = $5::text)
      ORDER BY n.id DESC
      LIMIT $6`,
    // One more than asked tells whether another page exists.
    values: [input.accountId, input.userId, before, input.unreadOnly === true, input.kind ?? null, limit + 1],
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { notices: page.map(view), next_cursor: rows.length > limit && last ? last.id : null };
}

/** How many of the account's notices `userId` has not read (the panel's badge). */
export async function countUnreadTemplateNotices(
  deps: { db: Db },
  input: { accountId: string; userId: string },
): Promise<number> {
  checkIds(input);
  const { rows } = await deps.db.sql.query<{ count: number }>({
    name: "count-unread-template-notices",
    text: `SELECT count(*)::int AS count FROM template_notices n
      WHERE n.account_id = $1::uuid
        AND EXISTS (SELECT 1 FROM panel_users u WHERE u.id = $2::uuid AND u.account_id = $1::uuid)
        AND NOT EXISTS (SELECT 1 FROM template_notice_reads r WHERE r.notice_id = n.id AND r.user_id = $2::uuid)`,
    values: [input.accountId, input.userId],
  });
  return rows[0]?.count ?? 0;
}

// The notice and the user must both belong to the account; marking twice keeps the first read time.
const MARK_READ = `
WITH target AS (
  SELECT n.id AS notice_id, u.id AS user_id FROM template_notices n
  JOIN panel_users u ON u.account_id = n.account_id AND u.id = $3::uuid
  WHERE n.id = $1::bigint AND n.account_id = $2::uuid
), marked AS (
  INSERT INTO template_notice_reads (notice_id, user_id) SELECT notice_id, user_id FROM target
  ON CONFLICT (notice_id, user_id) DO NOTHING
  RETURNING read_at
)
SELECT EXISTS (SELECT 1 FROM target) AS found,
  COALESCE((SELECT read_at FROM marked),
    (SELECT r.read_at FROM template_notice_reads r JOIN target t USING (notice_id, user_id))) AS read_at`;

/**
 * Marks one notice read for `userId`. A notice of another account (or a user of another account) is `not_found`,
 * exactly like an id that does not exist.
 */
export async function markTemplateNoticeRead(
  deps: { db: Db },
  input: { accountId: string; userId: string; noticeId: number | string; actor: Actor },
): Promise<{ id: number; read_at: string }> {
  checkIds(input);
  const noticeId = String(input.noticeId);
  const notFound = new ApiError("not_found", { message: "O aviso de template não foi encontrado nesta conta." });
  if (!/^\d{1,18}$/.test(noticeId)) throw notFound;
  return inTransaction(deps.db.sql, async (client) => {
    const { rows } = await client.query<{ found: boolean; read_at: Date | null }>({
      name: "mark-template-notice-read",
      text: MARK_READ,
      values: [noticeId, input.accountId, input.userId],
    });
    const row = rows[0];
    if (!row?.found || !row.read_at) throw notFound;
    await recordAudit(client, {
      accountId: input.accountId,
      actor: input.actor,
      action: auditAction(input.actor, "template_notice.read"),
      target: `template_notice:${noticeId}`,
    });
    return { id: Number(noticeId), read_at: row.read_at.toISOString() };
  });
}

/** Marks every notice of the account read for `userId`; returns how many were unread. */
export async function markAllTemplateNoticesRead(
  deps: { db: Db },
  input: { accountId: string; userId: string; actor: Actor },
): Promise<number> {
  checkIds(input);
  return inTransaction(deps.db.sql, async (client) => {
    const { rowCount } = await client.query({
      name: "mark-all-template-notices-read",
      text: `INSERT INTO template_notice_reads (notice_id, user_id)
        SELECT n.id, u.id FROM template_notices n
        JOIN panel_users u ON u.account_id = n.account_id AND u.id = $2::uuid
        WHERE n.account_id = $1::uuid
        ON CONFLICT (notice_id, user_id) DO NOTHING`,
      values: [input.accountId, input.userId],
    });
    const marked = rowCount ?? 0;
    if (marked > 0)
      await recordAudit(client, {
        accountId: input.accountId,
        actor: input.actor,
        action: auditAction(input.actor, "template_notice.read_all"),
        details: { count: marked },
      });
    return marked;
  });
}
