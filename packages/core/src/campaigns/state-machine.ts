import { inTransaction, type Db, type Sql } from "@gw/db";
import type { CampaignStatus } from "@gw/contracts";
import { ApiError } from "@gw/errors";
import type { CampaignWake } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import { auditAction, recordAudit } from "../audit/audit.ts";
import { accountDisabledError } from "../health/blocks.ts";
import { campaignNotFound, type CampaignActor } from "./model.ts";
import { getCampaign, loadCampaign, type CampaignDetail, type CampaignReadDeps } from "./views.ts";

// A campaign's life: draft → scheduled/running ⇄ paused → completed, or cancelled; one guarded statement per control.

/** Puts a campaign's tick job in the queue (the worker's sweep does it anyway within its interval). */
export type CampaignWaker = (campaigns: readonly CampaignWake[]) => Promise<void>;

export interface CampaignControlDeps extends CampaignReadDeps {
  logger: Logger;
  wake?: CampaignWaker | undefined;
}

type Verb = "start" | "pause" | "resume" | "cancel";

const VERB_WORDS: Record<Verb, { participle: string; done: string }> = {
  start: { participle: "iniciada", done: "started" },
  pause: { participle: "pausada", done: "paused" },
  resume: { participle: "retomada", done: "resumed" },
  cancel: { participle: "cancelada", done: "cancelled" },
};

const STATUS_WORDS: Record<CampaignStatus, string> = {
  draft: "em rascunho",
  scheduled: "agendada",
  running: "em andamento",
  paused: "pausada",
  completed: "concluída",
  cancelled: "cancelada",
};

/** From which statuses each control applies. */
const ALLOWED_FROM: Record<Verb, readonly CampaignStatus[]> = {
  start: ["draft"],
  pause: ["running", "scheduled"],
  resume: ["paused"],
  cancel: ["draft", "scheduled", "running", "paused"],
};

// One statement per control: the status changes only from an allowed one, so two controls at once cannot both win.
// A start (or resume) goes to `scheduled` while start_at is ahead, else to `running`. A pause keeps its reason ($3:
// the gateway's own, null for a person's); any other control clears it.
const TRANSITION_SQL: Record<Verb, string> = {
  start: `UPDATE campaigns SET status = CASE WHEN start_at > now() THEN 'scheduled' ELSE 'running' END,
      started_at = CASE WHEN start_at > now() THEN NULL ELSE now() END, pause_reason = NULL, updated_at = now()
    WHERE id = $1::uuid AND account_id = $2::uuid AND status = 'draft' RETURNING status, start_at`,
  pause: `UPDATE campaigns SET status = 'paused', pause_reason = $3, updated_at = now()
    WHERE id = $1::uuid AND account_id = $2::uuid AND status IN ('running', 'scheduled') RETURNING status, start_at`,
  resume: `UPDATE campaigns SET status = CASE WHEN start_at > now() THEN 'scheduled' ELSE 'running' END,
      started_at = CASE WHEN start_at > now() THEN started_at ELSE COALESCE(started_at, now()) END,
      pause_reason = NULL, updated_at = now()
    WHERE id = $1::uuid AND account_id = $2::uuid AND status = 'paused' RETURNING status, start_at`,
  cancel: `UPDATE campaigns SET status = 'cancelled', cancelled_at = now(), pause_reason = NULL, updated_at = now()
    WHERE id = $1::uuid AND account_id = $2::uuid AND status IN ('draft', 'scheduled', 'running', 'paused')
    RETURNING status, start_at`,
};

export interface TransitionInput extends CampaignActor {
  campaignId: string;
  /** The status the campaign had when the control was asked (the audit entry's `from`). */
  from: CampaignStatus;
  /** Pause only: why the gateway paused it by itself. */
  reason?: string | null | undefined;
  /** Added to the audit entry's details. */
  details?: Record<string, string> | undefined;
}

/**
 * One control inside the caller's transaction: the status change (only from an allowed status) and its audit entry
 * `<origin>.campaign.<done>`. Null when the campaign was not in a status the control applies to.
 */
export async function transition(
  sql: Sql,
  verb: Verb,
  input: TransitionInput,
): Promise<{ status: CampaignStatus; start_at: Date | null } | null> {
  const { rows } = await sql.query<{ status: CampaignStatus; start_at: Date | null }>({
    name: `campaign-${verb}`,
    text: TRANSITION_SQL[verb],
    values:
      verb === "pause"
        ? [input.campaignId, input.accountId, input.reason ?? null]
        : [input.campaignId, input.accountId],
  });
  const row = rows[0];
  if (!row) return null;
  // Recipients not reserved yet are cancelled with the campaign; one being sent finishes its send.
  if (verb === "cancel")
    await sql.query({
      name: "campaign-cancel-recipients",
      text: `UPDATE campaign_recipients SET status = 'cancelled', updated_at = now()
        WHERE campaign_id = $1::uuid AND status = 'queued'`,
      values: [input.campaignId],
    });
  await recordAudit(sql, {
    accountId: input.accountId,
    actor: input.actor,
    action: auditAction(input.actor, `campaign.${VERB_WORDS[verb].done}`),
    target: `campaign:${input.campaignId}`,
    details: {
      from: input.from,
      to: row.status,
      ...(input.reason ? { reason: input.reason } : {}),
      ...input.details,
    },
  });
  return row;
}

/** Why a campaign from this number cannot start or resume now: Meta banned or disconnected its WABA. */
async function blockedNumberRefusal(db: Db, accountId: string, phoneNumberId: string): Promise<ApiError | null> {
  const { rows } = await db.sql.query<{ waba_id: string; sending_blocked_at: Date; sending_block_reason: string }>({
    name: "campaign-number-sending-block",
    text: `SELECT h.waba_id, h.sending_blocked_at, h.sending_block_reason FROM business_numbers n
      JOIN waba_health h ON h.account_id = n.account_id AND h.waba_id = n.waba_id AND h.sending_blocked_at IS NOT NULL
      WHERE n.account_id = $1::uuid AND n.phone_number_id = $2`,
    values: [accountId, phoneNumberId],
  });
  const row = rows[0];
  if (!row) return null;
  return accountDisabledError({ wabaId: row.waba_id, since: row.sending_blocked_at, reason: row.sending_block_reason });
}

async function control(
  deps: CampaignControlDeps,
  verb: Verb,
  input: CampaignActor & { campaignId: string; acceptedRecipients?: number },
): Promise<CampaignDetail> {
  const current = await loadCampaign(deps.db, input.accountId, input.campaignId);
  if (!current) throw campaignNotFound();
  if (verb === "start") {
    if (current.status === "draft" && current.accepted_recipients === 0) throw new ApiError("campaign_empty");
    if (current.status === "draft" && input.acceptedRecipients !== current.accepted_recipients)
      throw new ApiError("campaign_count_mismatch", {
        message: `A campanha tem ${current.accepted_recipients} destinatários aceitos, não ${input.acceptedRecipients ?? 0}; confira o relatório de validação e repita com accepted_recipients igual a ${current.accepted_recipients}.`,
      });
  }
  // Every send would be refused (account_disabled): the campaign stays as it is until Meta lifts the block.
  if ((verb === "start" && current.status === "draft") || (verb === "resume" && current.status === "paused")) {
    const blocked = await blockedNumberRefusal(deps.db, input.accountId, current.phone_number_id);
    if (blocked) throw blocked;
  }
  const changed = await inTransaction(deps.db.sql, (client) =>
    transition(client, verb, { ...input, from: current.status }),
  );
  if (!changed) {
    const now = await loadCampaign(deps.db, input.accountId, input.campaignId);
    if (!now) throw campaignNotFound();
    throw new ApiError("campaign_state_conflict", {
      message: `A campanha está ${STATUS_WORDS[now.status]} e não pode ser ${VERB_WORDS[verb].participle}${
        ALLOWED_FROM[verb].length > 0
          ? ` (só quando ${ALLOWED_FROM[verb].map((s) => STATUS_WORDS[s]).join(" ou ")})`
          : ""
      }.`,
    });
  }
  // Running or scheduled (or cancelled with sends to settle): give it its tick now rather than at the next sweep.
  if (deps.wake && changed.status !== "paused") {
    const at = changed.status === "scheduled" && changed.start_at ? changed.start_at : undefined;
    await deps.wake([{ campaignId: input.campaignId, at }]).catch((error: unknown) =>
      deps.logger.warn("campaign not queued; the worker's sweep will pick it up", {
        campaignId: input.campaignId,
        error: (error as Error).message,
      }),
    );
  }
  return getCampaign(deps, input);
}

/** Start a draft: only with the accepted recipient count its validation reported (`campaign_count_mismatch`). */
export function startCampaign(
  deps: CampaignControlDeps,
  input: CampaignActor & { campaignId: string; acceptedRecipients: number },
): Promise<CampaignDetail> {
  return control(deps, "start", input);
}

/** Stop sending: recipients being sent finish, the others wait. */
export function pauseCampaign(deps: CampaignControlDeps, input: CampaignActor & { campaignId: string }) {
  return control(deps, "pause", input);
}

export function resumeCampaign(deps: CampaignControlDeps, input: CampaignActor & { campaignId: string }) {
  return control(deps, "resume", input);
}

/** Cancel for good: recipients not yet reserved become `cancelled`. */
export function cancelCampaign(deps: CampaignControlDeps, input: CampaignActor & { campaignId: string }) {
  return control(deps, "cancel", input);
}
