-- Issue 21: replay of deliveries by time range, and the delivery log's CSV export.
-- A replay re-queues, in short batches, the account's deliveries created in [since, until) that match its filters;
-- the row records its progress (cursor_created_at, cursor_id: the last delivery it went past), so the
-- `deliveries.replay` job resumes where it stopped. status: pending | running | completed.
CREATE TABLE "delivery_replays" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "account_id" UUID NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "since" TIMESTAMPTZ(3) NOT NULL,
    "until" TIMESTAMPTZ(3) NOT NULL,
    "event" TEXT,
    "statuses" TEXT[],
    "integration_id" UUID,
    "matched" INTEGER,
    "queued" INTEGER NOT NULL DEFAULT 0,
    "batches" INTEGER NOT NULL DEFAULT 0,
    "cursor_created_at" TIMESTAMPTZ(3),
    "cursor_id" BIGINT NOT NULL DEFAULT 0,
    "actor" TEXT NOT NULL,
    "actor_origin" TEXT NOT NULL,
    "request_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "delivery_replays_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "delivery_replays_account_id_created_at_idx" ON "delivery_replays"("account_id", "created_at");
CREATE INDEX "delivery_replays_status_idx" ON "delivery_replays"("status");
ALTER TABLE "delivery_replays" ADD CONSTRAINT "delivery_replays_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Replays and the export read an account's deliveries by creation time, keyset on (created_at, id). IF NOT EXISTS:
-- on a large database build it beforehand with CREATE INDEX CONCURRENTLY under the same name, since this
-- migration's transaction blocks writes to the table while the index is built.
CREATE INDEX IF NOT EXISTS "deliveries_account_id_created_at_id_idx" ON "deliveries"("account_id", "created_at", "id");
