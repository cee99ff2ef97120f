-- Issue 39 (a bot and a person, one conversation): who answers a customer on the business's side, the integrator's
-- bot (the default) or a person. Handed over through the API (and, later, the panel's inbox); a person's hold lapses
-- back to the bot after the account's timeout without a move.
ALTER TABLE "conversations" ALTER COLUMN "thread_holder" DROP NOT NULL,
    ALTER COLUMN "thread_source" DROP NOT NULL,
    ALTER COLUMN "thread_changed_at" DROP NOT NULL,
    ADD COLUMN "handler" TEXT NOT NULL DEFAULT 'bot',
    ADD COLUMN "handler_note" TEXT,
    ADD COLUMN "handler_changed_at" TIMESTAMPTZ(3),
    ADD CONSTRAINT "conversations_handler_check" CHECK ("handler" IN ('bot', 'human'));

ALTER TABLE "accounts" ADD COLUMN "human_handler_timeout_minutes" INTEGER NOT NULL DEFAULT 1440;

-- The handler now: a person's hold that lapsed (the account's timeout since the handover) is the bot's again. One
-- spelling for every reader (the conversation's detail, each message.received), read when needed: nothing has to
-- run when the timeout passes. Null when the conversation has no row (the bot's).
CREATE FUNCTION gateway_conversation_handler(p_account uuid, p_phone_number_id text, p_contact text) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN c.handler = 'human'
      AND c.handler_changed_at > now() - make_interval(mins => a.human_handler_timeout_minutes)
    THEN 'human' ELSE 'bot' END
  FROM conversations c JOIN accounts a ON a.id = c.account_id
  WHERE c.account_id = p_account AND c.contact_key = p_contact AND c.phone_number_id = p_phone_number_id
$$;

-- Merging two contact keys of one person (20261207120200_merge_keeps_strongest_opt_out) now also folds the
-- conversations (Conversation Routing's holder, issue 37; the handler, issue 39): the survivor's row wins where both
-- have one, each part by its own newest time; and the window keeps the newest message's field and receipt time.
CREATE OR REPLACE FUNCTION gateway_merge_contacts(p_account uuid, p_survivor text, p_absorbed text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF p_survivor = p_absorbed THEN RETURN; END IF;
  -- Most merges absorb a key nothing is keyed by yet (a BSUID learnt beside its phone): one read to say so, instead of
  -- the statements that would each find nothing.
  IF NOT EXISTS (SELECT 1 FROM contact_identifiers WHERE contact_key = p_absorbed AND account_id = (SELECT p_account))
    AND NOT EXISTS (SELECT 1 FROM contacts WHERE account_id = p_account AND key = p_absorbed)
    AND NOT EXISTS (SELECT 1 FROM contact_suppressions WHERE account_id = p_account AND contact = p_absorbed)
    AND NOT EXISTS (SELECT 1 FROM contact_windows w JOIN business_numbers b ON b.phone_number_id = w.phone_number_id
      WHERE b.account_id = p_account AND w.contact = p_absorbed)
    AND NOT EXISTS (SELECT 1 FROM messages WHERE contact_key = p_absorbed AND account_id = (SELECT p_account))
    AND NOT EXISTS (SELECT 1 FROM inbound_messages WHERE contact_key = p_absorbed AND account_id = (SELECT p_account))
    AND NOT EXISTS (SELECT 1 FROM conversations WHERE account_id = p_account AND contact_key = p_absorbed)
  THEN
    RETURN;
  END IF;
  UPDATE contact_identifiers SET contact_key = p_survivor
    WHERE contact_key = p_absorbed AND account_id = (SELECT p_account);
  INSERT INTO contact_windows (phone_number_id, contact, last_inbound_at, expires_at, last_inbound_standby,
      last_inbound_received_at)
    SELECT w.phone_number_id, p_survivor, w.last_inbound_at, w.expires_at, w.last_inbound_standby,
      w.last_inbound_received_at
    FROM contact_windows w JOIN business_numbers b ON b.phone_number_id = w.phone_number_id
    WHERE b.account_id = p_account AND w.contact = p_absorbed
    ON CONFLICT (phone_number_id, contact) DO UPDATE SET
      last_inbound_standby = CASE WHEN EXCLUDED.last_inbound_at > contact_windows.last_inbound_at
        THEN EXCLUDED.last_inbound_standby ELSE contact_windows.last_inbound_standby END,
      last_inbound_received_at = CASE WHEN EXCLUDED.last_inbound_at > contact_windows.last_inbound_at
        THEN EXCLUDED.last_inbound_received_at ELSE contact_windows.last_inbound_received_at END,
      last_inbound_at = GREATEST(contact_windows.last_inbound_at, EXCLUDED.last_inbound_at),
      expires_at = GREATEST(contact_windows.expires_at, EXCLUDED.expires_at);
  DELETE FROM contact_windows w USING business_numbers b
    WHERE b.phone_number_id = w.phone_number_id AND b.account_id = p_account AND w.contact = p_absorbed;
  INSERT INTO conversations (account_id, contact_key, phone_number_id, thread_holder, thread_role, thread_source,
      thread_changed_at, handler, handler_note, handler_changed_at)
    SELECT account_id, p_survivor, phone_number_id, thread_holder, thread_role, thread_source, thread_changed_at,
      handler, handler_note, handler_changed_at
    FROM conversations WHERE account_id = p_account AND contact_key = p_absorbed
    ON CONFLICT (account_id, contact_key, phone_number_id) DO UPDATE SET
      thread_holder = CASE WHEN EXCLUDED.thread_changed_at > conversations.thread_changed_at
        OR conversations.thread_changed_at IS NULL THEN EXCLUDED.thread_holder ELSE conversations.thread_holder END,
      thread_role = CASE WHEN EXCLUDED.thread_changed_at > conversations.thread_changed_at
        OR conversations.thread_changed_at IS NULL THEN EXCLUDED.thread_role ELSE conversations.thread_role END,
      thread_source = CASE WHEN EXCLUDED.thread_changed_at > conversations.thread_changed_at
        OR conversations.thread_changed_at IS NULL THEN EXCLUDED.thread_source ELSE conversations.thread_source END,
      thread_changed_at = GREATEST(conversations.thread_changed_at, EXCLUDED.thread_changed_at),
      handler = CASE WHEN EXCLUDED.handler_changed_at > conversations.handler_changed_at
        OR conversations.handler_changed_at IS NULL THEN EXCLUDED.handler ELSE conversations.handler END,
      handler_note = CASE WHEN EXCLUDED.handler_changed_at > conversations.handler_changed_at
        OR conversations.handler_changed_at IS NULL THEN EXCLUDED.handler_note ELSE conversations.handler_note END,
      handler_changed_at = GREATEST(conversations.handler_changed_at, EXCLUDED.handler_changed_at);
  DELETE FROM conversations WHERE account_id = p_account AND contact_key = p_absorbed;
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

-- CREATE OR REPLACE resets the function's settings: as before, a sequential scan is never its plan when an index applies.
ALTER FUNCTION gateway_merge_contacts(uuid, text, text) SET enable_seqscan = off;
