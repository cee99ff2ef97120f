import { inTransaction, type Db, type Sql } from "@gw/db";
import { ApiError } from "@gw/errors";
import { announceNumberChange, type SendingBlock } from "../accounts/directory.ts";
import { recordAuditAs, type Actor } from "../audit/audit.ts";

/**
 * A WABA's sending block: set when Meta bans, deletes or disconnects it (health/apply.ts), lifted when Meta
 * reinstates or reconnects it, or by the operator (`liftSendingBlock`). Read by the send through the account
 * directory (the number carries its WABA's block), by the campaign controls and by the panel.
 */

/** "2026-11-20 15:00 UTC": when a block started, in the refusal's sentence. */
function sinceText(since: Date): string {
  return `${since.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** The refusal of a send (or of a campaign's start) from a number whose WABA is blocked. */
export function accountDisabledError(block: Pick<SendingBlock, "wabaId" | "since" | "reason">): ApiError {
  return new ApiError("account_disabled", {
    message: `Os envios da conta WhatsApp Business ${block.wabaId} estão bloqueados desde ${sinceText(block.since)}: ${block.reason}. Nada foi enviado; os envios voltam quando a Meta reativar ou reconectar a conta.`,
  });
}

/** The refusal for a number the directory resolved, or null when its WABA may send. */
export function sendingBlockRefusal(number: { sendingBlock: SendingBlock | null }): ApiError | null {
  return number.sendingBlock ? accountDisabledError(number.sendingBlock) : null;
}

export interface WabaHealthView {
  waba_id: string;
  /** Since when sends from the WABA's numbers are refused (Meta's time of the event); null when they are not. */
  sending_blocked_at: string | null;
  /** The event that blocked them (DISABLED_UPDATE, ACCOUNT_DELETED, PARTNER_REMOVED...). */
  sending_block_event: string | null;
  /** What happened, in Portuguese. */
  sending_block_reason: string | null;
  /** The portfolio's messaging limit as Meta last reported it (TIER_2K, TIER_UNLIMITED...). */
  messaging_limit: string | null;
  max_phone_numbers: number | null;
  capability_updated_at: string | null;
}

interface WabaHealthRow {
  waba_id: string;
  sending_blocked_at: Date | null;
  sending_block_event: string | null;
  sending_block_reason: string | null;
  messaging_limit: string | null;
  max_phone_numbers: number | null;
  capability_updated_at: Date | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What Meta reported about each WABA the account has numbers in (WABAs it reported nothing about are listed too,
 * with nulls), blocked ones first. `blockedOnly` keeps the blocked ones (the panel's banner, on every page).
 */
export async function listWabaHealth(
  deps: { db: Db },
  input: { accountId: string; blockedOnly?: boolean },
): Promise<WabaHealthView[]> {
  if (!UUID.test(input.accountId)) return [];
  const { rows } = await deps.db.sql.query<WabaHealthRow>({
    name: "list-waba-health",
    text: `SELECT w.waba_id, h.sending_blocked_at, h.sending_block_event, h.sending_block_reason, h.messaging_limit,
        h.max_phone_numbers, h.capability_updated_at
      FROM (SELECT DISTINCT waba_id FROM business_numbers WHERE account_id = $1::uuid) w
      LEFT JOIN waba_health h ON h.account_id = $1::uuid AND h.waba_id = w.waba_id
      WHERE NOT $2::boolean OR h.sending_blocked_at IS NOT NULL
      ORDER BY h.sending_blocked_at IS NULL, w.waba_id`,
    values: [input.accountId, input.blockedOnly === true],
  });
  return rows.map((row) => ({
    waba_id: row.waba_id,
    sending_blocked_at: row.sending_blocked_at?.toISOString() ?? null,
    sending_block_event: row.sending_block_event,
    sending_block_reason: row.sending_block_reason,
    messaging_limit: row.messaging_limit,
    max_phone_numbers: row.max_phone_numbers,
    capability_updated_at: row.capability_updated_at?.toISOString() ?? null,
  }));
}

/** The WABA's block before a change, read under lock (the row is created empty first, so there is one to lock). */
export async function lockWabaHealth(
  sql: Sql,
  accountId: string,
  wabaId: string,
): Promise<{ blockedAt: Date | null; blockEvent: string | null; blockChangedAt: Date | null }> {
  await sql.query({
    name: "waba-health-ensure",
    text: `INSERT INTO waba_health (account_id, waba_id) VALUES ($1::uuid, $2) ON CONFLICT DO NOTHING`,
    values: [accountId, wabaId],
  });
  const { rows } = await sql.query<{
    sending_blocked_at: Date | null;
    sending_block_event: string | null;
    block_changed_at: Date | null;
  }>({
    name: "waba-health-lock",
    text: `SELECT sending_blocked_at, sending_block_event, block_changed_at FROM waba_health
      WHERE account_id = $1::uuid AND waba_id = $2 FOR UPDATE`,
    values: [accountId, wabaId],
  });
  const row = rows[0];
  return {
    blockedAt: row?.sending_blocked_at ?? null,
    blockEvent: row?.sending_block_event ?? null,
    blockChangedAt: row?.block_changed_at ?? null,
  };
}

/**
 * Inside the caller's transaction: sends from the WABA's numbers stop (`since` is kept when it was blocked already;
 * the event and reason become the latest). Audited `<origin>.account.sending_blocked` when it was not blocked.
 */
export async function blockSending(
  sql: Sql,
  input: {
    accountId: string;
    wabaId: string;
    event: string;
    reason: string;
    at: Date;
    wasBlocked: boolean;
    actor: Actor;
    details?: Record<string, string>;
  },
): Promise<void> {
  await sql.query({
    name: "waba-health-block",
    text: `UPDATE waba_health SET sending_blocked_at = COALESCE(sending_blocked_at, $3), sending_block_event = $4,
        sending_block_reason = $5, block_changed_at = $3, updated_at = now()
      WHERE account_id = $1::uuid AND waba_id = $2`,
    values: [input.accountId, input.wabaId, input.at, input.event, input.reason],
  });
  if (input.wasBlocked) return;
  await recordAuditAs(sql, input, "account.sending_blocked", {
    target: `waba:${input.wabaId}`,
    details: { event: input.event, reason: input.reason, ...input.details },
  });
  await announceNumberChange(sql, input.accountId);
}

/**
 * Inside the caller's transaction: sends from the WABA's numbers may go again. Audited
 * `<origin>.account.sending_unblocked` with the event that blocked them. `at` (Meta's time) orders later events.
 */
export async function unblockSending(
  sql: Sql,
  input: {
    accountId: string;
    wabaId: string;
    at: Date;
    previousEvent: string | null;
    actor: Actor;
    details?: Record<string, string>;
  },
): Promise<void> {
  await sql.query({
    name: "waba-health-unblock",
    text: `UPDATE waba_health SET sending_blocked_at = NULL, sending_block_event = NULL, sending_block_reason = NULL,
        block_changed_at = $3, updated_at = now()
      WHERE account_id = $1::uuid AND waba_id = $2`,
    values: [input.accountId, input.wabaId, input.at],
  });
  await recordAuditAs(sql, input, "account.sending_unblocked", {
    target: `waba:${input.wabaId}`,
    details: { ...(input.previousEvent ? { blocked_by: input.previousEvent } : {}), ...input.details },
  });
  await announceNumberChange(sql, input.accountId);
}

/**
 * The operator lifts a WABA's block by hand (`pnpm gateway account unblock`), for when Meta's reinstatement never
 * arrives. Its campaigns stay paused for a person to resume. False when the WABA was not blocked.
 */
export async function liftSendingBlock(
  deps: { db: Db },
  input: { accountId: string; wabaId: string; actor: Actor },
): Promise<boolean> {
  if (!UUID.test(input.accountId)) return false;
  return inTransaction(deps.db.sql, async (client) => {
    const { rows } = await client.query<{ sending_block_event: string | null }>({
      name: "waba-health-lock-blocked",
      text: `SELECT sending_block_event FROM waba_health
        WHERE account_id = $1::uuid AND waba_id = $2 AND sending_blocked_at IS NOT NULL FOR UPDATE`,
      values: [input.accountId, input.wabaId],
    });
    const blocked = rows[0];
    if (!blocked) return false;
    await unblockSending(client, {
      accountId: input.accountId,
      wabaId: input.wabaId,
      // Meta's events older than now no longer block it again; a newer ban does.
      at: new Date(),
      previousEvent: blocked.sending_block_event,
      actor: input.actor,
    });
    return true;
  });
}
