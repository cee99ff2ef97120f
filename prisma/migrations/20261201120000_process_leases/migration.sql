-- Issue 25, item 2: a crashed pod's in-flight Idempotency-Keys settle in seconds, not after the stale bound.
-- Every process that reserves keys (the API, the campaign worker) holds a lease it renews every few seconds
-- (expires_at by the database's clock) and records itself as the owner of the reservations it makes. A repeat that
-- finds the owner's lease expired or gone settles the key at once; rows without an owner (written by the previous
-- release) keep the stale rule. Expand only: the previous release neither reads nor writes the new column.
CREATE TABLE "process_leases" (
    "owner" UUID NOT NULL,
    "service" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "process_leases_pkey" PRIMARY KEY ("owner")
);

-- No foreign key: a lease is deleted on graceful shutdown (and long-expired ones by the next process to start) while
-- its keys stay; an owner without a lease is a dead one.
ALTER TABLE "idempotency_keys" ADD COLUMN "owner" UUID;
