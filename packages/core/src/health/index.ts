import type { Sql } from "@gw/db";
import type { MetaAccountEvent } from "@gw/meta";
import type { PendingDelivery } from "../events/outbox.ts";

/** One account or number health event (Meta's account_update, phone_number_quality_update...), for an account. */
export interface AccountEventInput {
  accountId: string;
  event: MetaAccountEvent;
}

/**
 * Store and act on account and number health events, inside the provider webhook's transaction. Returns the
 * deliveries they create.
 */
export function applyAccountEvents(
  _sql: Sql,
  _events: readonly AccountEventInput[],
  _receivedAt: Date,
): Promise<PendingDelivery[]> {
  return Promise.resolve([]);
}
