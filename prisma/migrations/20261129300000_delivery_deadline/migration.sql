-- A delivery's life is bounded by the retry schedule (spec 6.5), also when its attempts were held back (an open
-- circuit breaker): the dispatcher fails every delivery still `pending` once its budget of automatic attempts
-- started longer ago than the schedule can last. budget_started_at is that start: the creation (the column's
-- default, the same now() as created_at), reset by a manual retry. The deadline itself is not stored: the
-- dispatcher derives it from its configured schedule (WEBHOOK_RETRY_SCHEDULE_MS), which the API does not know.
--
-- Rows that exist before this migration get the migration's time: a backlog pending at the upgrade gets a full
-- schedule from then instead of being failed all at once (and the change is metadata-only, no table rewrite).
ALTER TABLE "deliveries" ADD COLUMN "budget_started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- The expiry reads pending rows by budget start, in bounded batches. IF NOT EXISTS: on a large database an
-- operator may build it beforehand with CREATE INDEX CONCURRENTLY (same name) once the column exists, since this
-- migration's transaction blocks writes to the table while the index is built.
CREATE INDEX IF NOT EXISTS "deliveries_status_budget_started_at_idx" ON "deliveries"("status", "budget_started_at");
