-- Issue 35, item 9: orders and their messages are deleted ORDER_RETENTION_DAYS after their last change
-- (docs/decisions.md, "Retention"). The purge reads the orders past their time through this index, oldest change
-- first, in bounded batches like the other purges.
--
-- IF NOT EXISTS: on a large database build it first with CREATE INDEX CONCURRENTLY under the same name (building it
-- inside this migration's transaction blocks writes to orders meanwhile).
CREATE INDEX IF NOT EXISTS orders_updated_at_idx ON orders (updated_at);
