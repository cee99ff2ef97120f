-- Contacts (docs/decisions.md, "Contacts: phone numbers and BSUIDs"). A contact is a phone number, a
-- business-scoped user id (BSUID), or both, per account. Every table that keys a contact (contact_windows,
-- contact_suppressions, messages.contact_key, inbound_messages.contact_key) holds its KEY: the first identifier it
-- was known by (its phone for every contact known before this release, so their rows stay as they are). Identifiers
-- learnt later (a BSUID next to a phone, a new phone or BSUID after a change) point at the same key.

CREATE TABLE contacts (
  account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE ON UPDATE CASCADE,
  key text NOT NULL,
  phone text,
  bsuid text,
  parent_bsuid text,
  username text,
  name text,
  created_at timestamptz(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at timestamptz(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (account_id, key)
);

-- Every identifier a contact was seen with. A retired phone (the user changed number) no longer names anyone new;
-- a retired BSUID still names its contact (Meta never gives a BSUID to someone else).
CREATE TABLE contact_identifiers (
  account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE ON UPDATE CASCADE,
  identifier text NOT NULL,
  kind text NOT NULL,
  contact_key text NOT NULL,
  retired_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (account_id, identifier)
);
CREATE INDEX contact_identifiers_account_id_contact_key_idx ON contact_identifiers (account_id, contact_key);

-- Inbound messages from a user known only by a BSUID have no phone.
ALTER TABLE inbound_messages ALTER COLUMN from_number DROP NOT NULL;
ALTER TABLE inbound_messages
  ADD COLUMN contact_key text,
  ADD COLUMN from_user_id text,
  ADD COLUMN from_parent_user_id text,
  ADD COLUMN from_username text;
-- The key every stored inbound message had: its sender's digits, a 12-digit Brazilian id with the 9th digit.
UPDATE inbound_messages SET contact_key = CASE
    WHEN from_number ~ '^55[1-9]{2}[6-9][0-9]{7}$' THEN '55' || substr(from_number, 3, 2) || '9' || substr(from_number, 5)
    ELSE from_number END;
ALTER TABLE inbound_messages ALTER COLUMN contact_key SET NOT NULL;
CREATE INDEX inbound_messages_phone_number_id_contact_key_idx ON inbound_messages (phone_number_id, contact_key);

-- A send's contact (its key) and, once Meta tells it, the recipient's BSUID; the pricing Meta reported for it.
ALTER TABLE messages
  ADD COLUMN contact_key text,
  ADD COLUMN recipient_user_id text,
  ADD COLUMN pricing jsonb;

-- The contact of `p_identifier` (a phone's digits, or a BSUID): the key its identifier points at, else the
-- identifier itself (a contact never seen: its rows, if any, are keyed by it). A retired phone (its user changed
-- number) names no one any more: a key of its own that no contact has, so no window or opt-out of the old user
-- applies to whoever has the number now.
CREATE FUNCTION gateway_contact_key(p_account uuid, p_identifier text) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT COALESCE(
    (SELECT CASE WHEN retired_at IS NOT NULL AND kind = 'phone' THEN 'retired:' || p_identifier ELSE contact_key END
      FROM contact_identifiers WHERE account_id = p_account AND identifier = p_identifier),
    p_identifier)
$$;

-- Fold contact `p_absorbed` into `p_survivor` (the same person, known by two keys until now): identifiers, windows
-- (the later times win), suppressions (the earlier entry wins), messages and inbound messages move to the survivor.
CREATE FUNCTION gateway_merge_contacts(p_account uuid, p_survivor text, p_absorbed text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF p_survivor = p_absorbed THEN RETURN; END IF;
  UPDATE contact_identifiers SET contact_key = p_survivor WHERE account_id = p_account AND contact_key = p_absorbed;
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
  UPDATE messages SET contact_key = p_survivor WHERE account_id = p_account AND contact_key = p_absorbed;
  UPDATE inbound_messages SET contact_key = p_survivor WHERE account_id = p_account AND contact_key = p_absorbed;
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

-- Point `p_identifier` at contact `p_key` (merging the contact it named, if another one). Never moves a retired
-- phone: it names its old contact's history only.
CREATE FUNCTION gateway_attach_identifier(p_account uuid, p_key text, p_identifier text, p_kind text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  v_other text;
  v_retired timestamptz;
BEGIN
  IF p_identifier IS NULL THEN RETURN p_key; END IF;
  -- A concurrent webhook learning the same user waits here for the other's commit, then sees its row.
  INSERT INTO contact_identifiers (account_id, identifier, kind, contact_key) VALUES (p_account, p_identifier, p_kind, p_key)
    ON CONFLICT (account_id, identifier) DO NOTHING;
  IF FOUND THEN RETURN p_key; END IF;
  SELECT contact_key, retired_at INTO v_other, v_retired FROM contact_identifiers
    WHERE account_id = p_account AND identifier = p_identifier FOR UPDATE;
  IF v_other = p_key THEN RETURN p_key; END IF;
  IF v_retired IS NOT NULL AND p_kind = 'phone' THEN
    -- Someone new has an old number: the number now names them; the old contact keeps its history.
    UPDATE contact_identifiers SET contact_key = p_key, retired_at = NULL, created_at = now()
      WHERE account_id = p_account AND identifier = p_identifier;
    RETURN p_key;
  END IF;
  PERFORM gateway_merge_contacts(p_account, v_other, p_key);
  RETURN v_other;
END $$;

-- Learn a user as a webhook names them (phone when shared, BSUID, parent BSUID, display data): the contact they are
-- (found by any current identifier, or new), with every identifier pointing at it; two contacts that turn out to be
-- one are merged. Returns the contact's key. Idempotent: Meta redelivers.
CREATE FUNCTION gateway_learn_contact(
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
        COALESCE(EXCLUDED.name, contacts.name));
  RETURN v_key;
END $$;

-- A change of phone number or of BSUID (previous -> current): the contact the previous identifiers name keeps its
-- key (so its windows, suppressions and history stay), gains the current identifiers, and the previous ones retire.
-- A change about no one known is learnt as a new contact. Idempotent.
CREATE FUNCTION gateway_change_identity(
  p_account uuid, p_prev_phone text, p_prev_bsuid text, p_prev_parent text,
  p_cur_phone text, p_cur_bsuid text, p_cur_parent text, p_name text
) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  v_key text;
BEGIN
  SELECT contact_key INTO v_key FROM contact_identifiers
    WHERE account_id = p_account AND (retired_at IS NULL OR kind <> 'phone')
      AND identifier IN (p_prev_bsuid, p_prev_parent, p_prev_phone)
    ORDER BY CASE identifier WHEN p_prev_bsuid THEN 1 WHEN p_prev_parent THEN 2 ELSE 3 END
    LIMIT 1;
  IF v_key IS NULL AND p_prev_phone IS NOT NULL THEN
    -- A contact known before this release only by rows keyed by its phone.
    v_key := p_prev_phone;
  END IF;
  IF v_key IS NULL THEN
    RETURN gateway_learn_contact(p_account, p_cur_phone, p_cur_bsuid, p_cur_parent, NULL, p_name);
  END IF;
  v_key := gateway_attach_identifier(p_account, v_key, p_prev_phone, 'phone');
  v_key := gateway_attach_identifier(p_account, v_key, p_prev_bsuid, 'bsuid');
  v_key := gateway_attach_identifier(p_account, v_key, p_prev_parent, 'parent_bsuid');
  v_key := gateway_attach_identifier(p_account, v_key, p_cur_bsuid, 'bsuid');
  v_key := gateway_attach_identifier(p_account, v_key, p_cur_parent, 'parent_bsuid');
  v_key := gateway_attach_identifier(p_account, v_key, p_cur_phone, 'phone');
  UPDATE contact_identifiers SET retired_at = now()
    WHERE account_id = p_account AND retired_at IS NULL AND (
      (identifier = p_prev_bsuid AND p_cur_bsuid IS NOT NULL AND p_cur_bsuid <> p_prev_bsuid)
      OR (identifier = p_prev_parent AND p_cur_parent IS NOT NULL AND p_cur_parent <> p_prev_parent)
      OR (identifier = p_prev_phone AND p_cur_phone IS NOT NULL AND p_cur_phone <> p_prev_phone));
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
