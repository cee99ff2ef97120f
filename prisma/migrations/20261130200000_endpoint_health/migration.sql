-- Endpoint health (issue 21, item 3). An integration whose every attempt failed for WEBHOOK_DISABLE_AFTER_FAILING_MS
-- is disabled by the dispatcher with a stated reason; its deliveries wait until it is re-enabled by hand.
ALTER TABLE "integrations" ADD COLUMN "disabled_at" TIMESTAMPTZ(3);
ALTER TABLE "integrations" ADD COLUMN "disabled_reason" TEXT;

-- Each attempt names its integration, so an integration's last hour and day of attempts is one index range (success
-- rate, latency percentiles, last error). Attempts recorded before this migration keep NULL (no backfill: a rewrite of
-- the whole table); an integration's figures are complete one day after the upgrade.
ALTER TABLE "delivery_attempts" ADD COLUMN "integration_id" UUID;

-- IF NOT EXISTS: on a large database an operator may build it beforehand with CREATE INDEX CONCURRENTLY (same name)
-- once the column exists.
CREATE INDEX IF NOT EXISTS "delivery_attempts_integration_id_started_at_idx" ON "delivery_attempts"("integration_id", "started_at");
