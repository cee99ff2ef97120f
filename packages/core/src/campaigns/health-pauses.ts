import type { Sql } from "@gw/db";
import type { CampaignStatus } from "@gw/contracts";
import type { CampaignActor } from "./model.ts";
import { transition } from "./state-machine.ts";

/**
 * The gateway pausing campaigns by itself (Meta reported a quality drop, a restriction or a ban), inside the
 * caller's transaction: every running or scheduled campaign of the account sending from one of `phoneNumberIds`
 * goes through the same pause as a person's, with `reason` kept and shown. Returns the ids paused. The worker sees
 * the status within its poll (CAMPAIGN statusPollMs) and stops claiming recipients.
 */
export async function pauseCampaignsOfNumbers(
  sql: Sql,
  input: CampaignActor & { phoneNumberIds: readonly string[]; reason: string; details?: Record<string, string> },
): Promise<string[]> {
  if (input.phoneNumberIds.length === 0) return [];
  const { rows } = await sql.query<{ id: string; status: CampaignStatus }>({
    name: "campaigns-to-pause-of-numbers",
    text: `SELECT id::text, status FROM campaigns
      WHERE account_id = $1::uuid AND phone_number_id = ANY($2::text[]) AND status IN ('running', 'scheduled')
      ORDER BY created_at, id FOR UPDATE`,
    values: [input.accountId, [...input.phoneNumberIds]],
  });
  const paused: string[] = [];
  for (const row of rows) {
    const done = await transition(sql, "pause", {
      accountId: input.accountId,
      actor: input.actor,
      campaignId: row.id,
      from: row.status,
      reason: input.reason,
      details: input.details,
    });
    if (done) paused.push(row.id);
  }
  return paused;
}
