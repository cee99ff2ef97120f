-- Issue 37 §4: a customer's message that came on Meta's `standby` webhook field (another app, such as Meta's Business
-- AI agent, owns the conversation) is stored like any other and marked, so Conversas shows who holds the thread.
ALTER TABLE "inbound_messages" ADD COLUMN "standby" BOOLEAN NOT NULL DEFAULT false;
