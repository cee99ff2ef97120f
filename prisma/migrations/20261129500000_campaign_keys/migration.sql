-- Hardening item 5: a campaign recipient's Idempotency-Key is kept while the recipient is `sending` (expires_at
-- 'infinity'); the purge removes it by updated_at once the recipient is settled. One index serves both purges.
CREATE INDEX "idempotency_keys_expires_at_updated_at_idx" ON "idempotency_keys"("expires_at", "updated_at");
DROP INDEX "idempotency_keys_expires_at_idx";
