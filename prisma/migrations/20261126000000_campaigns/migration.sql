-- Campaigns and per-number throughput governance (docs/decisions.md, "Campaigns").

-- Meta's messaging rate of the number (80/s by default, up to 1 000/s; 20/s for a number shared with the
-- WhatsApp Business app), set by the operator; every send from the number is paced by it.
ALTER TABLE "business_numbers" ADD COLUMN "messaging_rate_per_second" INTEGER NOT NULL DEFAULT 80;

-- Contacts who asked to stop marketing messages (Meta's user_preferences webhook, error 131050, or an operator).
CREATE TABLE "contact_suppressions" (
    "account_id" UUID NOT NULL,
    "contact" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "contact_suppressions_pkey" PRIMARY KEY ("account_id", "contact")
);
ALTER TABLE "contact_suppressions" ADD CONSTRAINT "contact_suppressions_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A bulk template send. status: draft | scheduled | running | paused | completed | cancelled.
CREATE TABLE "campaigns" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "phone_number_id" TEXT NOT NULL,
    "template_name" TEXT NOT NULL,
    "template_language" TEXT NOT NULL,
    "template_category" TEXT,
    "status" TEXT NOT NULL,
    "start_at" TIMESTAMPTZ(3),
    "created_by" TEXT NOT NULL,
    "total_rows" INTEGER NOT NULL DEFAULT 0,
    "accepted_recipients" INTEGER NOT NULL DEFAULT 0,
    "rejected_rows" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "cancelled_at" TIMESTAMPTZ(3),

    CONSTRAINT "campaigns_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "campaigns_account_id_created_at_idx" ON "campaigns"("account_id", "created_at");
CREATE INDEX "campaigns_status_idx" ON "campaigns"("status");
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One accepted recipient of a campaign. status: queued | sending | sent | failed | skipped | cancelled
-- (delivered/read are read from the message). `sending` is the reservation: a recipient leaves `queued` once.
CREATE TABLE "campaign_recipients" (
    "id" BIGSERIAL NOT NULL,
    "campaign_id" UUID NOT NULL,
    "row_number" INTEGER NOT NULL,
    "contact" TEXT NOT NULL,
    "parameters" JSONB,
    "client_ref" TEXT,
    "status" TEXT NOT NULL,
    "message_id" UUID,
    "wamid" TEXT,
    "error_code" TEXT,
    "error_message" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "not_before" TIMESTAMPTZ(3),
    "reserved_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "campaign_recipients_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "campaign_recipients_campaign_id_contact_key" ON "campaign_recipients"("campaign_id", "contact");
CREATE INDEX "campaign_recipients_campaign_id_status_id_idx" ON "campaign_recipients"("campaign_id", "status", "id");
CREATE INDEX "campaign_recipients_wamid_idx" ON "campaign_recipients"("wamid");
ALTER TABLE "campaign_recipients" ADD CONSTRAINT "campaign_recipients_campaign_id_fkey" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE CASCADE;
