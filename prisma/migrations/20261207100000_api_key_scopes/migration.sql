-- Issue 35, item 1: what an API key may do. Each public operation requires one scope (apps/api: its route's
-- `scope`); a key holds a list of scopes, or NULL: every scope, including the ones a later release adds. The keys
-- made before this release stay NULL (nothing to backfill: every integrator's key keeps working, for the operations
-- added later too), and so is a new key created without a list or with all of them (core/src/accounts/scopes.ts).
ALTER TABLE "api_keys" ADD COLUMN "scopes" TEXT[];

-- Only the known scopes, at least one: a key that may do nothing is a mistake, and an empty list would read as
-- "every scope" to a careless reader. A release that adds a scope replaces this constraint.
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_scopes_known" CHECK (
  "scopes" IS NULL OR (
    cardinality("scopes") > 0
    AND "scopes" <@ ARRAY['messages:send', 'messages:read', 'orders:write', 'media:write', 'integrations:manage', 'usage:read']::text[]
  )
);
