-- Issue 39 (the inbox): a conversation is open or closed and may be assigned to one of the account's panel users.
-- Closing returns it to the bot; a customer writing to a closed conversation reopens it.
ALTER TABLE "conversations" ADD COLUMN "status" TEXT NOT NULL DEFAULT 'open',
    ADD COLUMN "status_changed_at" TIMESTAMPTZ(3),
    ADD COLUMN "assignee_id" UUID,
    ADD CONSTRAINT "conversations_status_check" CHECK ("status" IN ('open', 'closed')),
    ADD CONSTRAINT "conversations_assignee_id_fkey" FOREIGN KEY ("assignee_id") REFERENCES "panel_users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
