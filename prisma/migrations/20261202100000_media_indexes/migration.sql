-- Retention of what issue 27 added (docs/decisions.md, "Retention"): the sends whose summary (`messages.content`)
-- and the inbound messages whose payload-version-2 members or media checksum are still to be cleared, each read
-- through an index of just those rows, so a clearing batch never walks the rows cleared before.
--
-- IF NOT EXISTS: on a large database build them first with CREATE INDEX CONCURRENTLY under the same names (building
-- one inside this migration's transaction blocks writes to its table meanwhile).

CREATE INDEX IF NOT EXISTS messages_with_content_created_at_idx ON messages (created_at) WHERE content IS NOT NULL;
CREATE INDEX IF NOT EXISTS inbound_messages_with_details_created_at_idx ON inbound_messages (created_at)
  WHERE details IS NOT NULL OR media_sha256 IS NOT NULL;
