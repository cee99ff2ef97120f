-- Issue 21, item 4: ordered delivery per message, an option per integration (off by default: the contract's
-- behaviour). A delivery of an integration with `deliver_in_order` carries its ordering key (`m:<message id>` for
-- message.status, `c:<contact key>` for message.received; none for account-level events) and is not attempted while
-- an earlier delivery (lower id: creation order) of the same integration and key is pending or delivering.
ALTER TABLE "integrations" ADD COLUMN "deliver_in_order" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "deliveries" ADD COLUMN "ordering_key" TEXT;
-- Set while the delivery waits for an earlier one of its key (its next_attempt_at is then only a re-check time).
ALTER TABLE "deliveries" ADD COLUMN "held_since" TIMESTAMPTZ(3);
-- The gate's query (the earliest unsettled delivery of a key) and the release's (the key's next one): only the
-- unsettled rows of ordered integrations, so the index stays small and unordered integrations never touch it.
CREATE INDEX "deliveries_unsettled_ordering_key_idx" ON "deliveries"("integration_id", "ordering_key", "id")
  WHERE "ordering_key" IS NOT NULL AND "status" IN ('pending', 'delivering');
