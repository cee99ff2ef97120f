import type { Db } from "@gw/db";
import { recordAuditAs, type Actor } from "../audit/audit.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a deletion removed: the integration and its deliveries (with their attempts). */
export interface DeletedIntegration {
  id: string;
  deliveriesRemoved: number;
}

/**
 * Delete an integration of the account (the public API's DELETE): its deliveries and their attempts go with it (the
 * schema's cascade), so none is attempted again; a job already queued for one finds no row and is skipped. Audited
 * as `<origin>.integration.deleted` with its URL, events and the count, in the same transaction. Null when it is not
 * the account's.
 */
export async function deleteIntegration(
  deps: { db: Db },
  input: { accountId: string; integrationId: string; actor: Actor },
): Promise<DeletedIntegration | null> {
  if (!UUID.test(input.integrationId)) return null;
  return deps.db.$transaction(async (tx) => {
    // Locked: a concurrent edit or rotation waits, and the count is of what the delete removes.
    const [row] = await tx.$queryRaw<{ url: string; events: string[] }[]>`
      SELECT url, events FROM integrations
      WHERE id = ${input.integrationId}::uuid AND account_id = ${input.accountId}::uuid
      FOR UPDATE`;
    if (!row) return null;
    const deliveriesRemoved = await tx.delivery.count({ where: { integrationId: input.integrationId } });
    await tx.integration.delete({ where: { id: input.integrationId } });
    await recordAuditAs(tx, input, "integration.deleted", {
      target: `integration:${input.integrationId}`,
      details: { url: row.url, events: row.events, deliveries_removed: deliveriesRemoved },
    });
    return { id: input.integrationId, deliveriesRemoved };
  });
}
