-- Issue 35, item 6: a dead campaign worker's recipients are re-driven as soon as its process lease runs out (seconds),
-- not CAMPAIGN_REDRIVE_AFTER_MS (90 s) after their claim (docs/decisions.md, "Process leases settle a dead pod's
-- Idempotency-Keys", and "A dead campaign worker's recipients follow its lease").
--
-- The process that claims a recipient (`queued` -> `sending`, or re-drives it) records its lease (process_leases.owner),
-- only while that lease is live, as Idempotency-Key reservations and Pix order claims do. A tick takes over a `sending`
-- row whose owner's lease has expired or is gone at once; a live owner's row only after CAMPAIGN_REDRIVE_AFTER_MS,
-- the one rule for rows without an owner. Expand only: the previous release neither reads nor writes the column (its
-- claims carry no owner and keep the time rule), and its ticks still re-drive by the time rule alone.
ALTER TABLE campaign_recipients ADD COLUMN claim_owner uuid;
