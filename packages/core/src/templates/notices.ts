import type { Db, Sql } from "@gw/db";
import type { MetaTemplateNotice } from "@gw/meta";
import type { Actor } from "../audit/audit.ts";
import { noticeKind } from "../notices/unread.ts";

/**
 * Meta's template notices (message_template_status_update, message_template_quality_update): panel-only, never
 * webhook events of the contract. Stored during the provider webhook's ingestion, for the account whose business
 * numbers are in the notice's WABA; read per panel user (one kind of ../notices/unread.ts).
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

/** A notice as read from the database: the view's fields, with the times as dates and the id as bigint text. */
type NoticeRow = Omit<TemplateNoticeView, "id" | "occurred_at" | "created_at" | "read" | "read_at"> & {
  id: string;
  occurred_at: Date;
  created_at: Date;
  read_at: Date | null;
};

const templateNotices = noticeKind<NoticeRow, TemplateNoticeView>({
  name: "template-notice",
  table: "template_notices",
  alias: "n",
  reads: "template_notice_reads",
  readKey: "notice_id",
  columns: `n.kind, n.waba_id, n.template_id, n.template_name, n.template_language, n.event, n.reason,
        n.previous_quality, n.new_quality, n.occurred_at, n.created_at`,
  filterColumn: "kind",
  notFound: "O aviso de template não foi encontrado nesta conta.",
  view: (row) => ({
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
  }),
});

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
  const { kind, ...rest } = input;
  const page = await templateNotices.list(deps, { ...rest, filter: kind });
  return { notices: page.items, next_cursor: page.next_cursor };
}

/** How many of the account's notices `userId` has not read (the panel's badge). */
export const countUnreadTemplateNotices = templateNotices.countUnread;

/**
 * Marks one notice read for `userId`. A notice of another account (or a user of another account) is `not_found`,
 * exactly like an id that does not exist.
 */
export function markTemplateNoticeRead(
  deps: { db: Db },
  input: { accountId: string; userId: string; noticeId: number | string; actor: Actor },
): Promise<{ id: number; read_at: string }> {
  const { noticeId, ...rest } = input;
  return templateNotices.markRead(deps, { ...rest, id: noticeId });
}

/** Marks every notice of the account read for `userId`; returns how many were unread. */
export const markAllTemplateNoticesRead = templateNotices.markAllRead;
