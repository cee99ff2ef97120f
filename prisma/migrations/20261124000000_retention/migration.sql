-- Retention (docs/decisions.md, "Retention"): the dispatcher's purges read the rows past their time through these
-- indexes, in bounded batches. IF NOT EXISTS: on a large database an operator may build them beforehand with
-- CREATE INDEX CONCURRENTLY (same names), since this migration's transaction blocks writes to the table while
-- an index is built.

-- Audit entries and inbound messages are deleted by age.
CREATE INDEX IF NOT EXISTS "audit_entries_created_at_idx" ON "audit_entries"("created_at");
CREATE INDEX IF NOT EXISTS "inbound_messages_created_at_idx" ON "inbound_messages"("created_at");

-- Personal data is cleared from rows that stay: these partial indexes hold only the rows still to clear (an
-- inbound message that still has the contact's text, name or media; an attempt that still has the integrator's
-- answer), so each batch reads exactly what is left to do and the index shrinks as it goes. Partial indexes
-- cannot be written in schema.prisma: the drift test lists them as SQL-only objects.
CREATE INDEX IF NOT EXISTS "inbound_messages_with_content_created_at_idx" ON "inbound_messages"("created_at")
  WHERE "text" IS NOT NULL OR "contact_name" IS NOT NULL OR "media_id" IS NOT NULL OR "media_filename" IS NOT NULL;
CREATE INDEX IF NOT EXISTS "delivery_attempts_with_response_body_started_at_idx" ON "delivery_attempts"("started_at")
  WHERE "response_body" IS NOT NULL;
