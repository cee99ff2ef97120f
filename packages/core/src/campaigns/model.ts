import type { RecipientOutcome } from "@gw/contracts";
import { ApiError } from "@gw/errors";
import type { Actor } from "../audit/audit.ts";

// What every role of a campaign (views, creation, controls, export) shares: who acts, and a recipient's outcome.

/** The account a campaign service acts on, and who acts (audited as `<origin>.campaign.<verb>`). */
export interface CampaignActor {
  accountId: string;
  actor: Actor;
}

export type CampaignProgress = Record<RecipientOutcome, number>;

export const EMPTY_PROGRESS: CampaignProgress = {
  queued: 0,
  sending: 0,
  sent: 0,
  delivered: 0,
  read: 0,
  failed: 0,
  skipped: 0,
  cancelled: 0,
};

/**
 * A recipient's outcome: its own status, and once sent, its message's (joined as `m` by wamid), so delivered and
 * read come from the provider's statuses. Used by progress, the recipient list and the export alike.
 */
export const OUTCOME_SQL = `CASE WHEN r.status = 'sent' THEN CASE m.status WHEN 'read' THEN 'read' WHEN 'delivered' THEN 'delivered'
  WHEN 'failed' THEN 'failed' ELSE 'sent' END ELSE r.status END`;
export const ERROR_CODE_SQL = `CASE WHEN r.status = 'sent' AND m.status = 'failed' THEN m.error_reason ELSE r.error_code END`;
export const ERROR_MESSAGE_SQL = `CASE WHEN r.status = 'sent' AND m.status = 'failed' THEN m.error_message ELSE r.error_message END`;

/** A campaign not found in the account (another account's is not found either). */
export function campaignNotFound(): ApiError {
  return new ApiError("not_found", { message: "A campanha não foi encontrada nesta conta." });
}
