-- Conversations beyond text and templates (issue 27; docs/decisions.md, "Conversations: interactive, media,
-- reactions and locations").

-- Every media an account may send or open: what it uploaded (POST /public/v1/media) and what its contacts sent.
-- Meta keeps an uploaded media 30 days and a received one 7; `gone_at` is set once Meta answered that it no longer has
-- it. Another account's media is never found here (404), an expired one is 410 media_expired.
CREATE TABLE account_media (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE ON UPDATE CASCADE,
  phone_number_id text NOT NULL,
  media_id text NOT NULL,
  origin text NOT NULL CHECK (origin IN ('uploaded', 'received')),
  type text NOT NULL,
  mime_type text,
  size bigint,
  sha256 text,
  filename text,
  voice boolean,
  created_at timestamptz(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  expires_at timestamptz(3) NOT NULL,
  gone_at timestamptz(3)
);
CREATE UNIQUE INDEX account_media_account_id_media_id_key ON account_media (account_id, media_id);
CREATE INDEX account_media_expires_at_idx ON account_media (expires_at);

-- What a send carried beyond its kind (buttons, list rows, media, reaction, location), as the panel shows it; null for
-- text and template sends (whose text the gateway does not keep).
ALTER TABLE messages ADD COLUMN content jsonb;

-- A received media's SHA-256 (hex) and whether an audio is a voice note; the members of a received message beyond
-- today's columns (option tapped, template button, location, contact cards, reaction, ad referral, forwarded flags).
ALTER TABLE inbound_messages
  ADD COLUMN media_sha256 text,
  ADD COLUMN media_voice boolean,
  ADD COLUMN details jsonb;

-- Which `message.received` body an integration gets: 1, the contract's (today's bytes); 2, with the members above.
ALTER TABLE integrations ADD COLUMN payload_version smallint NOT NULL DEFAULT 1
  CONSTRAINT integrations_payload_version_check CHECK (payload_version IN (1, 2));
