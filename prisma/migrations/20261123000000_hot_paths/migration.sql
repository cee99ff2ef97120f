-- Provider webhooks: the raw payload is deduplicated by its hash; processed_at is set once every item was
-- applied or quarantined (the items that failed, with the reason, are kept in `quarantined`).
ALTER TABLE "provider_events" ADD COLUMN "payload_hash" TEXT;
ALTER TABLE "provider_events" ADD COLUMN "processed_at" TIMESTAMPTZ(3);
ALTER TABLE "provider_events" ADD COLUMN "quarantined" JSONB;
UPDATE "provider_events" SET "processed_at" = "received_at";
CREATE UNIQUE INDEX "provider_events_payload_hash_key" ON "provider_events"("payload_hash");
CREATE INDEX "provider_events_received_at_idx" ON "provider_events"("received_at");

-- Idempotency-Key: when the provider call started (a reservation that never reached the provider is freed,
-- not settled as send_unconfirmed) and the provider's message id once known.
ALTER TABLE "idempotency_keys" ADD COLUMN "provider_called_at" TIMESTAMPTZ(3);
ALTER TABLE "idempotency_keys" ADD COLUMN "wamid" TEXT;

-- The sweep reads pending deliveries through (status, next_attempt_at): every pending row has a due time.
UPDATE "deliveries" SET "next_attempt_at" = "created_at" WHERE "status" = 'pending' AND "next_attempt_at" IS NULL;
-- Deliveries stuck in `delivering` (their worker died) are found by (status, updated_at).
CREATE INDEX "deliveries_status_updated_at_idx" ON "deliveries"("status", "updated_at");

-- The oldest parked early status (a metric) and retention read early_statuses by arrival time.
CREATE INDEX "early_statuses_received_at_idx" ON "early_statuses"("received_at");

-- API pods cache key lookups for a few seconds; a revocation (or deletion) is announced at commit so every pod
-- forgets the key at once (LISTEN gw_api_key_changes), the cache TTL being only the fallback.
CREATE FUNCTION "gw_notify_api_key_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gw_api_key_changes', OLD."key_hash");
  RETURN NULL;
END;
$$;
CREATE TRIGGER "api_keys_notify_change" AFTER UPDATE OF "revoked_at", "key_hash" OR DELETE ON "api_keys"
  FOR EACH ROW EXECUTE FUNCTION "gw_notify_api_key_change"();
