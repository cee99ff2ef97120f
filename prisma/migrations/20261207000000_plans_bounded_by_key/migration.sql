-- Throughput, fifth pass (issue 34): every hot-path statement reads the rows it is about, whatever the planner's
-- statistics say (docs/performance.md, "Fifth pass"; packages/core/test/plans.hot-paths.test.ts holds each one to it).
--
-- The indexes are IF NOT EXISTS: on a large database build them first with CREATE INDEX CONCURRENTLY under the same
-- names (building one inside this migration's transaction blocks writes to its table meanwhile), then drop the old ones
-- with DROP INDEX CONCURRENTLY.

-- 1. Contacts. A lookup by (account, identifier) must use the primary key. With the other index on
--    (account_id, contact_key), an account the statistics did not know yet (its identifiers arrived after the last
--    ANALYZE, so it looked tiny) made the planner read all of the account's identifiers through that index, on every
--    status: quadratic in a new tenant's size. Leading with the contact key, that index serves only what it is for
--    (the identifiers of one contact).
CREATE INDEX IF NOT EXISTS contact_identifiers_contact_key_account_id_idx ON contact_identifiers (contact_key, account_id);
DROP INDEX IF EXISTS contact_identifiers_account_id_contact_key_idx;

-- 2. Deliveries. The claim and the result of an attempt find their rows by id. Indexes that lead with `status` let the
--    planner read every pending (or delivering) row instead, hash-joined to the attempts: cheap when the statistics
--    say the queue is empty, one full read of the queue per attempt when it is not (an integrator's outage leaves a
--    million). Each status index is now partial, on the rows of its one status (the queue, the attempts in flight,
--    the settled ones), so it holds only those, and its predicate names a column the claim and the result never test
--    (`… IS NOT NULL`, true of every row the sweep, the deadline and retention look for): no statement by id can use
--    one of them.
CREATE INDEX IF NOT EXISTS deliveries_pending_next_attempt_at_idx ON deliveries (next_attempt_at, id)
  WHERE status = 'pending' AND next_attempt_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS deliveries_pending_budget_started_at_idx ON deliveries (budget_started_at)
  WHERE status = 'pending' AND budget_started_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS deliveries_delivering_updated_at_idx ON deliveries (updated_at)
  WHERE status = 'delivering' AND updated_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS deliveries_settled_updated_at_idx ON deliveries (updated_at)
  WHERE status IN ('delivered', 'failed') AND updated_at IS NOT NULL;
DROP INDEX IF EXISTS deliveries_status_next_attempt_at_idx;
DROP INDEX IF EXISTS deliveries_status_budget_started_at_idx;
DROP INDEX IF EXISTS deliveries_status_updated_at_idx;

-- 3. The job that carries a delivery's first attempt with the others of its commit for the same integration
--    (`deliveries-<batch_id>-attempt-1`, @gw/jobs deliverFirstAttemptsJob): the id of that job's first delivery. The
--    sweep reads it to tell a row whose job is alive from one whose job was lost. Null: a job of its own (every row
--    before this release, every retry).
ALTER TABLE deliveries ADD COLUMN batch_id bigint;

-- 4. Learning a user. Each identifier is read by its own equality probe of the primary key: `identifier IN (...)` (an
--    array) let the planner read every identifier of an account it believed small, through the key's first column,
--    since it costs an array's probes at one descent each. And a user the gateway knows already (every status after a
--    recipient's first) is one such read of its identifiers and of its contact: no inserts that conflict, no row
--    locks, no writes. Before, each status inserted and then locked (FOR UPDATE) every identifier it named, and
--    upserted the contact. `p_lock` is for callers that key rows by the answer in the same transaction (an inbound
--    message, a preference): the identifiers are then read FOR SHARE, so a merge of that contact in flight is waited
--    for and its result read. A status keys nothing by it.
CREATE OR REPLACE FUNCTION gateway_identifiers_of(p_account uuid, p_bsuid text, p_parent text, p_phone text)
RETURNS TABLE (rank int, identifier text, contact_key text, retired_at timestamptz, kind text)
LANGUAGE sql STABLE AS $$
  SELECT 1, i.identifier, i.contact_key, i.retired_at, i.kind FROM contact_identifiers i
    WHERE i.account_id = p_account AND i.identifier = p_bsuid
  UNION ALL
  SELECT 2, i.identifier, i.contact_key, i.retired_at, i.kind FROM contact_identifiers i
    WHERE i.account_id = p_account AND i.identifier = p_parent
  UNION ALL
  SELECT 3, i.identifier, i.contact_key, i.retired_at, i.kind FROM contact_identifiers i
    WHERE i.account_id = p_account AND i.identifier = p_phone
$$;

CREATE OR REPLACE FUNCTION gateway_learn_contact(
  p_account uuid, p_phone text, p_bsuid text, p_parent text, p_username text, p_name text, p_lock boolean
) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  v_key text;
  v_keys text[];
  v_found int;
  v_eligible boolean;
  v_named int;
BEGIN
  IF p_phone IS NULL AND p_bsuid IS NULL AND p_parent IS NULL THEN RETURN NULL; END IF;
  IF p_lock THEN
    -- The same probes, each row locked FOR SHARE: a merge in flight is waited for, and the read below (a statement
    -- of its own, so a fresh snapshot) sees what it did.
    PERFORM 1 FROM contact_identifiers WHERE account_id = p_account AND identifier = p_bsuid FOR SHARE;
    PERFORM 1 FROM contact_identifiers WHERE account_id = p_account AND identifier = p_parent FOR SHARE;
    PERFORM 1 FROM contact_identifiers WHERE account_id = p_account AND identifier = p_phone FOR SHARE;
  END IF;
  -- One read of the identifiers: whether they all name one contact already, and else the contact the first eligible
  -- one names (a BSUID first, then the parent BSUID, then a phone not retired).
  SELECT array_agg(DISTINCT f.contact_key), count(DISTINCT f.identifier), bool_or(f.retired_at IS NULL OR f.kind <> 'phone'),
      (array_agg(f.contact_key ORDER BY f.rank) FILTER (WHERE f.retired_at IS NULL OR f.kind <> 'phone'))[1]
    INTO v_keys, v_found, v_eligible, v_key
    FROM gateway_identifiers_of(p_account, p_bsuid, p_parent, p_phone) f;
  SELECT count(DISTINCT x) INTO v_named FROM unnest(ARRAY[p_bsuid, p_parent, p_phone]) AS x WHERE x IS NOT NULL;
  IF v_found = v_named AND cardinality(v_keys) = 1 AND v_eligible THEN
    -- Every identifier names one contact already: attaching them would change nothing (see
    -- gateway_attach_identifier); only its display data may be news.
    v_key := v_keys[1];
    PERFORM 1 FROM contacts c
      WHERE c.account_id = p_account AND c.key = v_key
        AND (c.phone, c.bsuid, c.parent_bsuid, c.username, c.name)
          IS NOT DISTINCT FROM (COALESCE(p_phone, c.phone), COALESCE(p_bsuid, c.bsuid), COALESCE(p_parent, c.parent_bsuid),
            COALESCE(p_username, c.username), COALESCE(p_name, c.name))
        AND NOT ((p_name IS NOT NULL OR p_username IS NOT NULL) AND c.updated_at < now() - interval '1 day');
    IF FOUND THEN RETURN v_key; END IF;
  ELSE
    IF v_key IS NULL THEN
      -- A contact never seen: keyed by its phone (what every row before contacts existed used) unless that phone is an
      -- old key of another contact; else by its BSUID.
      IF p_phone IS NOT NULL AND NOT EXISTS (SELECT 1 FROM contacts WHERE account_id = p_account AND key = p_phone) THEN
        v_key := p_phone;
      ELSIF p_bsuid IS NOT NULL AND NOT EXISTS (SELECT 1 FROM contacts WHERE account_id = p_account AND key = p_bsuid) THEN
        v_key := p_bsuid;
      ELSE
        v_key := 'contact:' || gen_random_uuid();
      END IF;
    END IF;
    v_key := gateway_attach_identifier(p_account, v_key, p_bsuid, 'bsuid');
    v_key := gateway_attach_identifier(p_account, v_key, p_parent, 'parent_bsuid');
    v_key := gateway_attach_identifier(p_account, v_key, p_phone, 'phone');
  END IF;
  INSERT INTO contacts (account_id, key, phone, bsuid, parent_bsuid, username, name)
    VALUES (p_account, v_key, p_phone, p_bsuid, p_parent, p_username, p_name)
    ON CONFLICT (account_id, key) DO UPDATE SET
      phone = COALESCE(EXCLUDED.phone, contacts.phone),
      bsuid = COALESCE(EXCLUDED.bsuid, contacts.bsuid),
      parent_bsuid = COALESCE(EXCLUDED.parent_bsuid, contacts.parent_bsuid),
      username = COALESCE(EXCLUDED.username, contacts.username),
      name = COALESCE(EXCLUDED.name, contacts.name),
      updated_at = now()
    WHERE (contacts.phone, contacts.bsuid, contacts.parent_bsuid, contacts.username, contacts.name)
      IS DISTINCT FROM (COALESCE(EXCLUDED.phone, contacts.phone), COALESCE(EXCLUDED.bsuid, contacts.bsuid),
        COALESCE(EXCLUDED.parent_bsuid, contacts.parent_bsuid), COALESCE(EXCLUDED.username, contacts.username),
        COALESCE(EXCLUDED.name, contacts.name))
      OR ((EXCLUDED.name IS NOT NULL OR EXCLUDED.username IS NOT NULL)
        AND contacts.updated_at < now() - interval '1 day');
  RETURN v_key;
END $$;

-- What the previous release calls during a rolling update: the locking form.
CREATE OR REPLACE FUNCTION gateway_learn_contact(
  p_account uuid, p_phone text, p_bsuid text, p_parent text, p_username text, p_name text
) RETURNS text
LANGUAGE sql AS $$
  SELECT gateway_learn_contact(p_account, p_phone, p_bsuid, p_parent, p_username, p_name, true)
$$;

-- A change of phone number or of BSUID: as in 20261128000000_contacts, the previous identifiers read by their own
-- probes (gateway_identifiers_of) instead of an array.
CREATE OR REPLACE FUNCTION gateway_change_identity(
  p_account uuid, p_prev_phone text, p_prev_bsuid text, p_prev_parent text,
  p_cur_phone text, p_cur_bsuid text, p_cur_parent text, p_name text
) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  v_key text;
BEGIN
  SELECT f.contact_key INTO v_key FROM gateway_identifiers_of(p_account, p_prev_bsuid, p_prev_parent, p_prev_phone) f
    WHERE f.retired_at IS NULL OR f.kind <> 'phone'
    ORDER BY f.rank
    LIMIT 1;
  IF v_key IS NULL AND p_prev_phone IS NOT NULL THEN
    -- A contact known before contacts existed only by rows keyed by its phone.
    v_key := p_prev_phone;
  END IF;
  IF v_key IS NULL THEN
    RETURN gateway_learn_contact(p_account, p_cur_phone, p_cur_bsuid, p_cur_parent, NULL, p_name, true);
  END IF;
  v_key := gateway_attach_identifier(p_account, v_key, p_prev_phone, 'phone');
  v_key := gateway_attach_identifier(p_account, v_key, p_prev_bsuid, 'bsuid');
  v_key := gateway_attach_identifier(p_account, v_key, p_prev_parent, 'parent_bsuid');
  v_key := gateway_attach_identifier(p_account, v_key, p_cur_bsuid, 'bsuid');
  v_key := gateway_attach_identifier(p_account, v_key, p_cur_parent, 'parent_bsuid');
  v_key := gateway_attach_identifier(p_account, v_key, p_cur_phone, 'phone');
  -- One probe per retired identifier (an OR of three would let the planner read the account's identifiers).
  UPDATE contact_identifiers SET retired_at = now()
    WHERE account_id = p_account AND identifier = p_prev_bsuid AND retired_at IS NULL
      AND p_cur_bsuid IS NOT NULL AND p_cur_bsuid <> p_prev_bsuid;
  UPDATE contact_identifiers SET retired_at = now()
    WHERE account_id = p_account AND identifier = p_prev_parent AND retired_at IS NULL
      AND p_cur_parent IS NOT NULL AND p_cur_parent <> p_prev_parent;
  UPDATE contact_identifiers SET retired_at = now()
    WHERE account_id = p_account AND identifier = p_prev_phone AND retired_at IS NULL
      AND p_cur_phone IS NOT NULL AND p_cur_phone <> p_prev_phone;
  INSERT INTO contacts (account_id, key, phone, bsuid, parent_bsuid, name)
    VALUES (p_account, v_key, COALESCE(p_cur_phone, p_prev_phone), COALESCE(p_cur_bsuid, p_prev_bsuid),
      COALESCE(p_cur_parent, p_prev_parent), p_name)
    ON CONFLICT (account_id, key) DO UPDATE SET
      phone = COALESCE(p_cur_phone, contacts.phone, p_prev_phone),
      bsuid = COALESCE(p_cur_bsuid, contacts.bsuid, p_prev_bsuid),
      parent_bsuid = COALESCE(p_cur_parent, contacts.parent_bsuid, p_prev_parent),
      name = COALESCE(p_name, contacts.name),
      updated_at = now();
  RETURN v_key;
END $$;

-- 5. Rows found by a contact's key within an account. The account is named as `(SELECT p_account)`, a value the
--    planner cannot look up in the statistics: it then assumes an account of average size, never the "no rows" it
--    believes of an account that arrived after the last ANALYZE, and takes the contact key's index instead of reading
--    the whole account through an index that leads with account_id (with both estimated at one row, either could win).
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
    ON CONFLICT (account_id, contact) DO NOTHING;
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

-- As in 20261201040000_contact_links_and_retention, with the account named as above in the one statement that finds
-- identifiers by contact key.
CREATE OR REPLACE FUNCTION gateway_attach_identifier(p_account uuid, p_key text, p_identifier text, p_kind text)
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  v_other text;
  v_retired timestamptz;
BEGIN
  IF p_identifier IS NULL THEN RETURN p_key; END IF;
  LOOP
    -- A concurrent webhook learning the same user waits here for the other's commit, then sees its row.
    INSERT INTO contact_identifiers (account_id, identifier, kind, contact_key)
      VALUES (p_account, p_identifier, p_kind, p_key)
      ON CONFLICT (account_id, identifier) DO NOTHING;
    IF FOUND THEN
      -- Rows keyed by the bare identifier (it named no contact, so gateway_contact_key gave it back as is) are this
      -- contact's: an opt-out, window or history recorded under it must keep applying through the key. Never a
      -- contact other identifiers still name (an old key whose identifier moved on): that is someone else.
      IF p_identifier <> p_key AND NOT EXISTS (SELECT 1 FROM contact_identifiers
          WHERE contact_key = p_identifier AND account_id = (SELECT p_account) AND identifier <> p_identifier) THEN
        PERFORM gateway_merge_contacts(p_account, p_key, p_identifier);
      END IF;
      RETURN p_key;
    END IF;
    SELECT contact_key, retired_at INTO v_other, v_retired FROM contact_identifiers
      WHERE account_id = p_account AND identifier = p_identifier FOR UPDATE;
    -- Gone meanwhile (the contact was forgotten by retention): attach it as new.
    EXIT WHEN FOUND;
  END LOOP;
  IF v_other = p_key THEN RETURN p_key; END IF;
  IF v_retired IS NOT NULL AND p_kind = 'phone' THEN
    -- Someone new has an old number: the number now names them; the old contact keeps its history. What was keyed
    -- by the retired number meanwhile (sends to it, their 131050, an operator's opt-out) is the new owner's.
    UPDATE contact_identifiers SET contact_key = p_key, retired_at = NULL, created_at = now()
      WHERE account_id = p_account AND identifier = p_identifier;
    PERFORM gateway_merge_contacts(p_account, p_key, 'retired:' || p_identifier);
    RETURN p_key;
  END IF;
  PERFORM gateway_merge_contacts(p_account, v_other, p_key);
  RETURN v_other;
END $$;

-- 6. The tables every send and status writes (messages, deliveries, audit_entries, contacts, contact_identifiers) no
--    longer carry a foreign key to accounts. Each insert checked it by reading and locking its account's row (FOR KEY
--    SHARE): ten locks of that one row per message with its statuses, every concurrent transaction of a busy account
--    sharing them (a MultiXact each). Accounts are never deleted (the gateway has no such operation), so the key's
--    cascade removed nothing; the account id comes from the key, number or integration that authorised the write.
--    The keys between the delivery tables (deliveries -> integrations, delivery_attempts -> deliveries) stay: deleting
--    an integration, and retention, delete through them.
ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_account_id_fkey;
ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_account_id_fkey;
ALTER TABLE audit_entries DROP CONSTRAINT IF EXISTS audit_entries_account_id_fkey;
ALTER TABLE contacts DROP CONSTRAINT IF EXISTS contacts_account_id_fkey;
ALTER TABLE contact_identifiers DROP CONSTRAINT IF EXISTS contact_identifiers_account_id_fkey;

-- 7. The contact functions look rows up only by key (the primary key, or a contact's key). PL/pgSQL caches each
--    statement's plan per connection from its first calls: on a new install, with tables a few pages long, that plan
--    is a sequential scan, and it stays cached while the table grows (until the next ANALYZE invalidates it), read in
--    full on every status. Inside these functions a sequential scan is never the plan when an index applies.
ALTER FUNCTION gateway_learn_contact(uuid, text, text, text, text, text, boolean) SET enable_seqscan = off;
ALTER FUNCTION gateway_attach_identifier(uuid, text, text, text) SET enable_seqscan = off;
ALTER FUNCTION gateway_merge_contacts(uuid, text, text) SET enable_seqscan = off;
ALTER FUNCTION gateway_change_identity(uuid, text, text, text, text, text, text, text) SET enable_seqscan = off;
