-- Contacts, hardening round four (issue 25, items 1, 3 and 5).
--
-- 1. An identifier attached to a contact brings along the rows keyed by the identifier itself. A phone first seen
--    without a contact (a send to it, Meta's 131050 on that send, an operator's opt-out, rows from before contacts
--    existed) has its rows keyed by its bare digits; when it is later learnt beside a BSUID-first contact, those rows
--    (opt-out, window, history) merge into that contact instead of being left under a key nothing names any more.
--    Likewise a retired phone given to its new owner brings the rows keyed `retired:<digits>` (made while it named no
--    one: they are the new owner's).
-- 3. Contacts enter retention: display data (name, username) is cleared after the inbound content's period without
--    being received again, and a contact nothing is keyed by any more (no opt-out, message, inbound message or open
--    window) is forgotten with its identifiers (docs/decisions.md, "Retention").
-- 5. The merge's statements on messages and inbound_messages read an index instead of the account's whole history.
--
-- The indexes are IF NOT EXISTS: on a large database build them first with CREATE INDEX CONCURRENTLY under the same
-- names (building one inside this migration's transaction blocks writes to its table meanwhile).

CREATE INDEX IF NOT EXISTS messages_account_id_contact_key_idx ON messages (account_id, contact_key);
CREATE INDEX IF NOT EXISTS inbound_messages_account_id_contact_key_idx ON inbound_messages (account_id, contact_key);
-- Retention: contacts by the time they last changed or were last seen with their profile; the ones whose display
-- data is still to be cleared have an index of their own, so a clearing batch never walks the rows cleared before.
CREATE INDEX IF NOT EXISTS contacts_updated_at_idx ON contacts (updated_at);
CREATE INDEX IF NOT EXISTS contacts_with_profile_updated_at_idx ON contacts (updated_at)
  WHERE name IS NOT NULL OR username IS NOT NULL;

-- Point `p_identifier` at contact `p_key` (merging the contact it named, if another one; or, when it named no one
-- yet, the rows keyed by the identifier itself). A retired phone moves to its new owner only with the rows keyed
-- `retired:<digits>`: its old contact keeps the history keyed by it.
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
          WHERE account_id = p_account AND contact_key = p_identifier AND identifier <> p_identifier) THEN
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

-- As in 20261128000000_contacts, and: a sighting that carries the user's name or username counts as seeing it again
-- (updated_at, once a day at most), so retention clears the display data only after the inbound content's period
-- without it.
CREATE OR REPLACE FUNCTION gateway_learn_contact(
  p_account uuid, p_phone text, p_bsuid text, p_parent text, p_username text, p_name text
) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  v_key text;
BEGIN
  IF p_phone IS NULL AND p_bsuid IS NULL AND p_parent IS NULL THEN RETURN NULL; END IF;
  SELECT contact_key INTO v_key FROM contact_identifiers
    WHERE account_id = p_account AND (retired_at IS NULL OR kind <> 'phone')
      AND identifier IN (p_bsuid, p_parent, p_phone)
    ORDER BY CASE identifier WHEN p_bsuid THEN 1 WHEN p_parent THEN 2 ELSE 3 END
    LIMIT 1;
  IF v_key IS NULL THEN
    -- A contact never seen: keyed by its phone (what every row before this release used) unless that phone is an
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

-- Whether anything the gateway keeps is keyed by contact `p_key`: an opt-out (a legal record, kept for ever, and its
-- contact with it), a message, an inbound message or an open window; also under `retired:<digits>` of a phone it
-- retired (those rows wait for the number's next owner, who is found through the retired identifier). A contact
-- holding a number that is another contact's old key (given to it after the other changed number) is in use too:
-- forgetting it would hand the number back to the other contact's opt-out, window and history.
CREATE FUNCTION gateway_contact_in_use(p_account uuid, p_key text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  WITH keys AS (
    SELECT p_key AS key
    UNION ALL
    SELECT 'retired:' || identifier FROM contact_identifiers
      WHERE account_id = p_account AND contact_key = p_key AND kind = 'phone' AND retired_at IS NOT NULL
  )
  SELECT EXISTS (
    SELECT 1 FROM keys k
    WHERE EXISTS (SELECT 1 FROM contact_suppressions s WHERE s.account_id = p_account AND s.contact = k.key)
      OR EXISTS (SELECT 1 FROM messages m WHERE m.account_id = p_account AND m.contact_key = k.key)
      OR EXISTS (SELECT 1 FROM inbound_messages i WHERE i.account_id = p_account AND i.contact_key = k.key)
      OR EXISTS (SELECT 1 FROM contact_windows w JOIN business_numbers b ON b.phone_number_id = w.phone_number_id
        WHERE b.account_id = p_account AND w.contact = k.key AND w.expires_at > now()))
    OR EXISTS (SELECT 1 FROM contact_identifiers i JOIN contacts o ON o.account_id = i.account_id AND o.key = i.identifier
      WHERE i.account_id = p_account AND i.contact_key = p_key AND i.identifier <> p_key)
$$;

-- Retention: one batch of contacts unchanged since `p_before`, the next `p_limit` after the position
-- (p_after_at, p_after_account, p_after_key) in (updated_at, account_id, key) order. Those nothing is keyed by are
-- deleted with every identifier pointing at them; a contact or identifier a webhook holds is skipped (it is being
-- learnt: in use), so this never waits for a webhook's transaction. Returns how many contacts the batch looked at,
-- how many it forgot, and where it ended (the next batch's position).
CREATE FUNCTION gateway_forget_contacts(
  p_before timestamptz, p_limit int, p_after_at timestamptz, p_after_account uuid, p_after_key text
) RETURNS TABLE (scanned int, forgotten int, last_at timestamptz, last_account uuid, last_key text)
LANGUAGE plpgsql AS $$
DECLARE
  v_accounts uuid[];
  v_keys text[];
  v_times timestamptz[];
BEGIN
  SELECT array_agg(w.account_id ORDER BY w.updated_at, w.account_id, w.key),
      array_agg(w.key ORDER BY w.updated_at, w.account_id, w.key),
      array_agg(w.updated_at ORDER BY w.updated_at, w.account_id, w.key)
    INTO v_accounts, v_keys, v_times
    FROM (SELECT c.account_id, c.key, c.updated_at FROM contacts c
      WHERE c.updated_at < p_before
        AND (p_after_at IS NULL OR (c.updated_at, c.account_id, c.key) > (p_after_at, p_after_account, p_after_key))
      ORDER BY c.updated_at, c.account_id, c.key
      LIMIT p_limit) w;
  scanned := COALESCE(cardinality(v_keys), 0);
  forgotten := 0;
  IF scanned = 0 THEN
    RETURN NEXT;
    RETURN;
  END IF;
  last_at := v_times[scanned];
  last_account := v_accounts[scanned];
  last_key := v_keys[scanned];
  -- Lock the ones that look unused, and all their identifiers; one a webhook holds is left for a later run.
  WITH candidates AS MATERIALIZED (
    SELECT c.account_id, c.key FROM contacts c
    JOIN unnest(v_accounts, v_keys) AS t(account_id, key) ON c.account_id = t.account_id AND c.key = t.key
    WHERE c.updated_at < p_before AND NOT gateway_contact_in_use(c.account_id, c.key)
    FOR UPDATE OF c SKIP LOCKED
  ), locked AS MATERIALIZED (
    SELECT i.account_id, i.contact_key FROM contact_identifiers i
    JOIN candidates d ON i.account_id = d.account_id AND i.contact_key = d.key
    FOR UPDATE OF i SKIP LOCKED
  )
  SELECT array_agg(d.account_id), array_agg(d.key) INTO v_accounts, v_keys
  FROM candidates d
  WHERE (SELECT count(*) FROM locked l WHERE l.account_id = d.account_id AND l.contact_key = d.key)
    = (SELECT count(*) FROM contact_identifiers i WHERE i.account_id = d.account_id AND i.contact_key = d.key);
  IF v_keys IS NULL THEN
    RETURN NEXT;
    RETURN;
  END IF;
  -- Checked again under the locks, on what committed until now (a statement of its own: a fresh snapshot).
  WITH gone AS (
    DELETE FROM contacts c USING unnest(v_accounts, v_keys) AS t(account_id, key)
    WHERE c.account_id = t.account_id AND c.key = t.key AND NOT gateway_contact_in_use(c.account_id, c.key)
    RETURNING c.account_id, c.key
  ), unlinked AS (
    DELETE FROM contact_identifiers i USING gone g WHERE i.account_id = g.account_id AND i.contact_key = g.key
  )
  SELECT count(*)::int INTO forgotten FROM gone;
  RETURN NEXT;
END $$;
