import type { Db } from "@gw/db";
import type { Logger } from "@gw/logger";
import { runRetention, type RetentionDays } from "@gw/core/retention";
import type { PeriodicTaskSpec } from "@gw/jobs";
import type { DispatcherConfig } from "./config.ts";
import type { DispatcherMetrics } from "./metrics.ts";

const ACCOUNT_MEDIA_DAYS_PAST_EXPIRY = 30;

/** The days each retention target is kept, from the configuration (0 keeps it for ever). */
export function retentionDays(config: DispatcherConfig): RetentionDays {
  return {
    early_statuses: config.EARLY_STATUS_RETENTION_DAYS,
    provider_events: config.PROVIDER_EVENTS_RETENTION_DAYS,
    "deliveries.delivered": config.DELIVERIES_RETENTION_DAYS,
    "deliveries.failed": config.FAILED_DELIVERIES_RETENTION_DAYS,
    "delivery_attempts.response_body": config.ATTEMPT_BODY_RETENTION_DAYS,
    inbound_messages: config.INBOUND_RETENTION_DAYS,
    "inbound_messages.content": config.INBOUND_TEXT_RETENTION_DAYS,
    // Issue 27: what payload version 2 adds, and what a send carried, go with the contact's content.
    "inbound_messages.details": config.INBOUND_TEXT_RETENTION_DAYS,
    // Issue 35: a payment-method answer is the contact's content too, with or without other members.
    "inbound_messages.payment": config.INBOUND_TEXT_RETENTION_DAYS,
    "messages.content": config.INBOUND_TEXT_RETENTION_DAYS,
    // A media record 30 days past Meta's expiry (410 until then, 404 after): a pointer to a file Meta deleted.
    account_media: ACCOUNT_MEDIA_DAYS_PAST_EXPIRY,
    // Issue 35: a received media's record (its id and file name) with the inbound message's media id and file name,
    // also when that is shorter than Meta's 7 days.
    "account_media.received": config.INBOUND_TEXT_RETENTION_DAYS,
    orders: config.ORDER_RETENTION_DAYS,
    // Contacts by the same rule as the inbound messages they come from: display data with the content, the contact
    // (once nothing is keyed by it) with the rows.
    contacts: config.INBOUND_RETENTION_DAYS,
    "contacts.profile": config.INBOUND_TEXT_RETENTION_DAYS,
    audit_entries: config.AUDIT_RETENTION_DAYS,
  };
}

/**
 * The retention purges as one periodic task (docs/decisions.md, "Retention"). Any number of dispatcher pods may run
 * it at once: every batch skips the rows another pod holds. An aborted run (stop, or its deadline) lets the batch in
 * progress finish and runs no other.
 */
export function retentionPurge(deps: {
  db: Db;
  logger: Logger;
  metrics: DispatcherMetrics;
  config: DispatcherConfig;
}): PeriodicTaskSpec<void> {
  const { db, logger, metrics, config } = deps;
  const days = retentionDays(config);
  return {
    name: "retention",
    intervalMs: config.RETENTION_INTERVAL_MS,
    failure: "retention purge failed; trying again next cycle",
    async run(signal) {
      const { purged, failed } = await runRetention({ db }, { days, batchSize: config.RETENTION_BATCH_SIZE, signal });
      let total = 0;
      for (const [table, removed] of Object.entries(purged)) {
        metrics.retentionPurged.inc({ table }, removed);
        total += removed;
      }
      if (total > 0) logger.info("retention purge removed rows past their retention", { ...purged, total });
      for (const [table, error] of Object.entries(failed)) {
        logger.warn("retention purge failed for one table; trying again next cycle", { table, error: error.message });
      }
    },
  };
}
