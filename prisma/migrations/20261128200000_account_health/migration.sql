-- Account and number health (docs/decisions.md, "Account and number health (issue 18)"): Meta's account_update,
-- phone_number_quality_update, business_capability_update, message_template_components_update,
-- template_category_update and account_alerts webhooks, stored per account, and what the gateway does about them.

-- Every health event as Meta sent it, once per account (Meta redelivers, in the same bytes or in another payload:
-- dedupe_key is the SHA-256 of field, WABA, Meta's time and the value). `event` is value.event when Meta sent one;
-- `phone_number_id` the number a phone_number_quality_update named (matched by its display number, digits only);
-- `effects` what the gateway did about it (the data of the account.update webhook event).
CREATE TABLE "account_events" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "waba_id" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "event" TEXT,
    "phone_number_id" TEXT,
    "value" JSONB NOT NULL,
    "effects" JSONB,
    "occurred_at" TIMESTAMPTZ(3),
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "dedupe_key" TEXT NOT NULL,

    CONSTRAINT "account_events_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "account_events_account_id_dedupe_key_key" ON "account_events"("account_id", "dedupe_key");
CREATE INDEX "account_events_account_id_id_idx" ON "account_events"("account_id", "id");
ALTER TABLE "account_events" ADD CONSTRAINT "account_events_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Which panel user marked which health event read (as template_notice_reads).
CREATE TABLE "account_event_reads" (
    "event_id" BIGINT NOT NULL,
    "user_id" UUID NOT NULL,
    "read_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "account_event_reads_pkey" PRIMARY KEY ("event_id", "user_id")
);
CREATE INDEX "account_event_reads_user_id_idx" ON "account_event_reads"("user_id");
ALTER TABLE "account_event_reads" ADD CONSTRAINT "account_event_reads_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "account_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "account_event_reads" ADD CONSTRAINT "account_event_reads_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "panel_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One row per account and WABA it has numbers in, once Meta reported something about it. A WABA whose
-- sending_blocked_at is set was banned, deleted or disconnected: every send from its numbers is refused
-- (account_disabled) until Meta reinstates or reconnects it. block_changed_at is Meta's time of the last block or
-- lift applied, so an older event delivered late never undoes a newer one. messaging_limit is the portfolio's
-- limit as Meta last reported it (TIER_10K, 2000...), max_phone_numbers its cap on numbers.
CREATE TABLE "waba_health" (
    "account_id" UUID NOT NULL,
    "waba_id" TEXT NOT NULL,
    "sending_blocked_at" TIMESTAMPTZ(3),
    "sending_block_event" TEXT,
    "sending_block_reason" TEXT,
    "block_changed_at" TIMESTAMPTZ(3),
    "messaging_limit" TEXT,
    "max_phone_numbers" INTEGER,
    "capability_updated_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "waba_health_pkey" PRIMARY KEY ("account_id", "waba_id")
);
ALTER TABLE "waba_health" ADD CONSTRAINT "waba_health_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A number's health as Meta's phone_number_quality_update last reported it (null until one arrives): its quality
-- when the payload carried one, its messaging limit, HIGH throughput after THROUGHPUT_UPGRADE, the event and when.
ALTER TABLE "business_numbers"
  ADD COLUMN "reported_quality" TEXT,
  ADD COLUMN "reported_messaging_limit" TEXT,
  ADD COLUMN "reported_throughput" TEXT,
  ADD COLUMN "health_event" TEXT,
  ADD COLUMN "health_event_at" TIMESTAMPTZ(3);

-- Why the gateway paused the campaign (Meta reported a quality drop, a restriction or a ban), in Portuguese; null
-- when a person paused it. Cleared when the campaign is resumed or cancelled.
ALTER TABLE "campaigns" ADD COLUMN "pause_reason" TEXT;
