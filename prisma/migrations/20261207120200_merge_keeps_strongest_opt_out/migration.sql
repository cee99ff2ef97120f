-- Issue 35, item 10: an opt-out is never lost in a merge (docs/decisions.md, "Opt-outs").
--
-- gateway_merge_contacts copied the absorbed key's suppression to the survivor with ON CONFLICT DO NOTHING: when the
-- survivor already had an older `user_preferences` stop, the absorbed key's `operator` block (or its newer stop) was
-- dropped, and a later RESUME (which removes any entry but an operator's, when the entry is not newer than the resume)
-- then deleted the survivor's row: the person was no longer suppressed.
--
-- Now the survivor keeps the stronger of the two entries, and of two equally strong ones the newer: an operator's block
-- outranks any other reason (a user's RESUME never removes it, only an operator does); between a user's stop and
-- Meta's 131050 (which a RESUME treats alike) the newer one wins with its reason and its time, so a RESUME older than
-- it leaves the person on the list. Two operator blocks: the newer one. Everything else in the function is as in
-- 20261207000000_plans_bounded_by_key (the fast path for a key nothing is keyed by, and the account named as
-- `(SELECT p_account)` where a contact key leads).
--
-- No comment inside the function body precedes a statement: packages/core/test/contacts.merge-indexes.test.ts reads the
-- body's statements from pg_proc, split on semicolons.
CREATE OR REPLACE FUNCTION gateway_merge_contacts(p_account uuid, p_survivor text, p_absorbed text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF p_survivor = p_absorbed THEN RETURN; END IF;
  -- Most merges absorb a key nothing is keyed by yet (a BSUID learnt beside its phone): one read to say so, instead of
  -- the ten statements that would each find nothing.
  IF NOT EXISTS (SELECT 1 FROM contact_identifiers WHERE contact_key = p_absorbed AND account_id = (SELECT p_account))
    AND NOT EXISTS (SELECT 1 FROM contacts WHERE account_id = p_account AND key = p_absorbed)
    AND NOT EXISTS (SELECT 1 FROM contact_suppressions WHERE account_id = p_account AND contact = p_absorbed)
    AND NOT EXISTS (SELECT 1 FROM contact_windows w JOIN business_numbers b ON b.phone_number_id = w.phone_number_id
      WHERE b.account_id = p_account AND w.contact = p_absorbed)
    AND NOT EXISTS (SELECT 1 FROM messages WHERE contact_key = p_absorbed AND account_id = (SELECT p_account))
    AND NOT EXISTS (SELECT 1 FROM inbound_messages WHERE contact_key = p_absorbed AND account_id = (SELECT p_account))
  THEN
    RETURN;
  END IF;
  UPDATE contact_identifiers SET contact_key = p_survivor
    WHERE contact_key = p_absorbed AND account_id = (SELECT p_account);
  INSERT INTO contact_windows (phone_number_id, contact, last_inbound_at, expires_at)
    SELECT w.phone_number_id, p_survivor, w.last_inbound_at, w.expires_at
    FROM contact_windows w JOIN business_numbers b ON b.phone_number_id = w.phone_number_id
    WHERE b.account_id = p_account AND w.contact = p_absorbed
    ON CONFLICT (phone_number_id, contact) DO UPDATE SET
      last_inbound_at = GREATEST(contact_windows.last_inbound_at, EXCLUDED.last_inbound_at),
      expires_at = GREATEST(contact_windows.expires_at, EXCLUDED.expires_at);
  DELETE FROM contact_windows w USING business_numbers b
    WHERE b.phone_number_id = w.phone_number_id AND b.account_id = p_account AND w.contact = p_absorbed;
  INSERT INTO contact_suppressions (account_id, contact, reason, created_at)
    SELECT account_id, p_survivor, reason, created_at FROM contact_suppressions
    WHERE account_id = p_account AND contact = p_absorbed
    ON CONFLICT (account_id, contact) DO UPDATE SET reason = EXCLUDED.reason, created_at = EXCLUDED.created_at
      WHERE (EXCLUDED.reason = 'operator', EXCLUDED.created_at)
        > (contact_suppressions.reason = 'operator', contact_suppressions.created_at);
  DELETE FROM contact_suppressions WHERE account_id = p_account AND contact = p_absorbed;
  UPDATE messages SET contact_key = p_survivor WHERE contact_key = p_absorbed AND account_id = (SELECT p_account);
  UPDATE inbound_messages SET contact_key = p_survivor
    WHERE contact_key = p_absorbed AND account_id = (SELECT p_account);
  INSERT INTO contacts (account_id, key, phone, bsuid, parent_bsuid, username, name, created_at, updated_at)
    SELECT account_id, p_survivor, phone, bsuid, parent_bsuid, username, name, created_at, now()
    FROM contacts WHERE account_id = p_account AND key = p_absorbed
    ON CONFLICT (account_id, key) DO UPDATE SET
      phone = COALESCE(contacts.phone, EXCLUDED.phone),
      bsuid = COALESCE(contacts.bsuid, EXCLUDED.bsuid),
      parent_bsuid = COALESCE(contacts.parent_bsuid, EXCLUDED.parent_bsuid),
      username = COALESCE(contacts.username, EXCLUDED.username),
      name = COALESCE(contacts.name, EXCLUDED.name),
      created_at = LEAST(contacts.created_at, EXCLUDED.created_at),
      updated_at = now();
  DELETE FROM contacts WHERE account_id = p_account AND key = p_absorbed;
END $$;

-- CREATE OR REPLACE resets the function's settings: as in 20261207000000_plans_bounded_by_key (7), a sequential scan
-- is never its plan when an index applies.
ALTER FUNCTION gateway_merge_contacts(uuid, text, text) SET enable_seqscan = off;
