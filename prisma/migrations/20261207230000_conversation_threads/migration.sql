-- Issue 37 §4 (Conversation Routing): who holds a customer's conversation on a business number, as Meta's
-- messaging_handovers notifications and the gateway's own thread control last said. The customer's messages say it
-- too (on `messages` or on `standby`): contact_windows keeps whether the newest one came on standby and when the
-- gateway received it, so the holder is read from the newer of the two without a write per message. Everything is
-- ordered by the gateway's own clock (when it learnt each thing): Meta's times are whole seconds. A missing row is
-- "nothing known" (the gateway holds it).
CREATE TABLE "conversations" (
    "account_id" UUID NOT NULL,
    "phone_number_id" TEXT NOT NULL,
    "contact_key" TEXT NOT NULL,
    "thread_holder" TEXT NOT NULL,
    "thread_role" TEXT,
    "thread_source" TEXT NOT NULL,
    "thread_changed_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "conversations_pkey" PRIMARY KEY ("account_id", "contact_key", "phone_number_id"),
    CONSTRAINT "conversations_thread_holder_check" CHECK ("thread_holder" IN ('gateway', 'another_app', 'released')),
    CONSTRAINT "conversations_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

ALTER TABLE "contact_windows" ADD COLUMN "last_inbound_standby" BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN "last_inbound_received_at" TIMESTAMPTZ(3);
