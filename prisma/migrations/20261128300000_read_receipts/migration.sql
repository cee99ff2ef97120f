-- Read receipts (issue 18, docs/decisions.md "Read receipts and typing"). When an inbound message was marked read
-- at Meta (by the public API or the panel), with the earlier messages of its conversation, as Meta marks them.
ALTER TABLE inbound_messages ADD COLUMN read_at TIMESTAMPTZ(3);

-- Whether opening a conversation in the panel marks its messages read at Meta. Off by default: a read receipt tells
-- the contact someone at the business saw the message.
ALTER TABLE accounts ADD COLUMN panel_read_receipts BOOLEAN NOT NULL DEFAULT false;
