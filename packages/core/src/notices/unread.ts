import { inTransaction, type Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import { auditAction, recordAudit, type Actor } from "../audit/audit.ts";

/**
 * Notices the panel lists for each of its users, with what that user has read: Meta's account health events
 * (health/notices.ts) and template notices (templates/notices.ts). One mechanism for every kind: a page newest first
 * (keyset by id, unread only or one value of a column), the unread count (the badge), and marking one or all read,
 * audited. A user of another account sees nothing and marks nothing.
 */

/** One kind of notice: where its rows and their read marks are, how a row reads, and its words. */
export interface NoticeKind<Row extends NoticeRow, View> {
  /** Statement names and audit nouns: `account-event` gives `list-account-events`, `account_event.read`. */
  name: string;
  table: string;
  /** The table's alias in the statements, which `columns`, `joins` and `filterColumn` use. */
  alias: string;
  /** The read marks: `(<key>, user_id, read_at)`, unique on (key, user). */
  reads: string;
  readKey: string;
  /** What a page selects besides the id and the read time, and the joins it needs. */
  columns: string;
  joins?: string;
  /** The column a list's filter keeps one value of (`field`, `kind`). */
  filterColumn: string;
  /** The Portuguese sentence of a mark for a notice that is not the account's. */
  notFound: string;
  view(row: Row): View;
}

export interface NoticeRow {
  id: string;
  read_at: Date | null;
}

export interface NoticeReader {
  userId: string;
  accountId: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ID = /^\d{1,18}$/;

function checkIds(input: NoticeReader): void {
  // The panel passes its session's account and user; anything else names nobody (and must not reach a ::uuid cast).
  if (!UUID.test(input.accountId) || !UUID.test(input.userId))
    throw new ApiError("not_found", { message: "O usuário não foi encontrado nesta conta." });
}

/** The services of one kind of notice. */
export function noticeKind<Row extends NoticeRow, View>(kind: NoticeKind<Row, View>) {
  const { alias: a, table, reads, readKey } = kind;
  const plural = `${kind.name}s`;
  const noun = kind.name.replace(/-/g, "_");
  // The notice and the user must both belong to the account; marking twice keeps the first read time.
  const markRead = `
WITH target AS (
  SELECT ${a}.id AS ${readKey}, u.id AS user_id FROM ${table} ${a}
  JOIN panel_users u ON u.account_id = ${a}.account_id AND u.id = $3::uuid
  WHERE ${a}.id = $1::bigint AND ${a}.account_id = $2::uuid
), marked AS (
  INSERT INTO ${reads} (${readKey}, user_id) SELECT ${readKey}, user_id FROM target
  ON CONFLICT (${readKey}, user_id) DO NOTHING
  RETURNING read_at
)
SELECT EXISTS (SELECT 1 FROM target) AS found,
  COALESCE((SELECT read_at FROM marked),
    (SELECT r.read_at FROM ${reads} r JOIN target t USING (${readKey}, user_id))) AS read_at`;

  return {
    /**
     * The account's notices of this kind, newest first, with whether the user read each. `cursor` is the
     * `next_cursor` of the page before; `unreadOnly` keeps the ones this user has not read; `filter` keeps one value
     * of the kind's filter column.
     */
    list: async (
      deps: { db: Db },
      input: NoticeReader & {
        unreadOnly?: boolean | undefined;
        filter?: string | undefined;
        cursor?: string | null | undefined;
        limit: number;
      },
    ): Promise<{ items: View[]; next_cursor: string | null }> => {
      checkIds(input);
      const cursor = input.cursor ?? "";
      if (cursor !== "" && !ID.test(cursor))
        throw new ApiError("bad_request", { message: "O cursor de paginação dos avisos é inválido." });
      const limit = Math.max(1, Math.min(200, Math.trunc(input.limit)));
      const { rows } = await deps.db.sql.query<Row>({
        name: `list-${plural}`,
        text: `SELECT ${a}.id::text, ${kind.columns}, r.read_at
      FROM ${table} ${a}${kind.joins ? `\n      ${kind.joins}` : ""}
      LEFT JOIN ${reads} r ON r.${readKey} = ${a}.id AND r.user_id = $2::uuid
      WHERE ${a}.account_id = $1::uuid AND ($3::bigint IS NULL OR ${a}.id < $3::bigint)
        AND EXISTS (SELECT 1 FROM panel_users u WHERE u.id = $2::uuid AND u.account_id = $1::uuid)
        AND (NOT $4::boolean OR r.${readKey} IS NULL) AND ($5::text IS NULL OR ${a}.${kind.filterColumn} = $5::text)
      ORDER BY ${a}.id DESC
      LIMIT $6`,
        // One more than asked tells whether another page exists.
        values: [
          input.accountId,
          input.userId,
          cursor === "" ? null : cursor,
          input.unreadOnly === true,
          input.filter ?? null,
          limit + 1,
        ],
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { items: page.map((row) => kind.view(row)), next_cursor: rows.length > limit && last ? last.id : null };
    },

    /** How many of the account's notices of this kind the user has not read (the panel's badge). */
    countUnread: async (deps: { db: Db }, input: NoticeReader): Promise<number> => {
      checkIds(input);
      const { rows } = await deps.db.sql.query<{ count: number }>({
        name: `count-unread-${plural}`,
        text: `SELECT count(*)::int AS count FROM ${table} ${a}
      WHERE ${a}.account_id = $1::uuid
        AND EXISTS (SELECT 1 FROM panel_users u WHERE u.id = $2::uuid AND u.account_id = $1::uuid)
        AND NOT EXISTS (SELECT 1 FROM ${reads} r WHERE r.${readKey} = ${a}.id AND r.user_id = $2::uuid)`,
        values: [input.accountId, input.userId],
      });
      return rows[0]?.count ?? 0;
    },

    /** Marks one notice read for the user; one of another account (or a user of another account) is `not_found`. */
    markRead: async (
      deps: { db: Db },
      input: NoticeReader & { id: number | string; actor: Actor },
    ): Promise<{ id: number; read_at: string }> => {
      checkIds(input);
      const id = String(input.id);
      const notFound = new ApiError("not_found", { message: kind.notFound });
      if (!ID.test(id)) throw notFound;
      return inTransaction(deps.db.sql, async (client) => {
        const { rows } = await client.query<{ found: boolean; read_at: Date | null }>({
          name: `mark-${kind.name}-read`,
          text: markRead,
          values: [id, input.accountId, input.userId],
        });
        const row = rows[0];
        if (!row?.found || !row.read_at) throw notFound;
        await recordAudit(client, {
          accountId: input.accountId,
          actor: input.actor,
          action: auditAction(input.actor, `${noun}.read`),
          target: `${noun}:${id}`,
        });
        return { id: Number(id), read_at: row.read_at.toISOString() };
      });
    },

    /** Marks every notice of this kind of the account read for the user; returns how many were unread. */
    markAllRead: async (deps: { db: Db }, input: NoticeReader & { actor: Actor }): Promise<number> => {
      checkIds(input);
      return inTransaction(deps.db.sql, async (client) => {
        const { rowCount } = await client.query({
          name: `mark-all-${plural}-read`,
          text: `INSERT INTO ${reads} (${readKey}, user_id)
        SELECT ${a}.id, u.id FROM ${table} ${a}
        JOIN panel_users u ON u.account_id = ${a}.account_id AND u.id = $2::uuid
        WHERE ${a}.account_id = $1::uuid
        ON CONFLICT (${readKey}, user_id) DO NOTHING`,
          values: [input.accountId, input.userId],
        });
        const marked = rowCount ?? 0;
        if (marked > 0)
          await recordAudit(client, {
            accountId: input.accountId,
            actor: input.actor,
            action: auditAction(input.actor, `${noun}.read_all`),
            details: { count: marked },
          });
        return marked;
      });
    },
  };
}
