-- Issue 37 §2: a number may send its MARKETING templates through Meta's Marketing Messages API
-- (POST /{phone_number_id}/marketing_messages) instead of /messages; off until the account turns it on. Each sent
-- message records which endpoint carried it (null: sent before this column, by /messages).
ALTER TABLE "business_numbers" ADD COLUMN "marketing_messages" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "messages" ADD COLUMN "routed_via" TEXT;
