-- The web panel (docs/decisions.md, "Web panel"): the staff users of each account, their sessions and invites,
-- Meta's template notices with who read them, API key names, and the signing-secret overlap of a rotation.

-- Staff of one account. Emails are stored lower-cased; one user belongs to exactly one account.
CREATE TABLE "panel_users" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "account_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_login_at" TIMESTAMPTZ(3),

    CONSTRAINT "panel_users_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "panel_users_email_key" ON "panel_users"("email");
CREATE INDEX "panel_users_account_id_idx" ON "panel_users"("account_id");
ALTER TABLE "panel_users" ADD CONSTRAINT "panel_users_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A signed-in browser. `id` is the SHA-256 of the cookie's token, so a database read never yields a usable cookie.
CREATE TABLE "panel_sessions" (
    "id" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "csrf_token" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "panel_sessions_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "panel_sessions_user_id_idx" ON "panel_sessions"("user_id");
CREATE INDEX "panel_sessions_expires_at_idx" ON "panel_sessions"("expires_at");
ALTER TABLE "panel_sessions" ADD CONSTRAINT "panel_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "panel_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- An invitation by email; the owner is shown the link (no mail server is assumed). `token_hash` is SHA-256.
CREATE TABLE "panel_invites" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "account_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "invited_by" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "accepted_at" TIMESTAMPTZ(3),

    CONSTRAINT "panel_invites_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "panel_invites_token_hash_key" ON "panel_invites"("token_hash");
CREATE INDEX "panel_invites_account_id_idx" ON "panel_invites"("account_id");
ALTER TABLE "panel_invites" ADD CONSTRAINT "panel_invites_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Meta's message_template_status_update / message_template_quality_update webhooks, per account (found by
-- the WABA of entry[].id). Panel-only notices (spec: not webhook events).
CREATE TABLE "template_notices" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "waba_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "template_id" TEXT,
    "template_name" TEXT NOT NULL,
    "template_language" TEXT,
    "event" TEXT NOT NULL,
    "reason" TEXT,
    "previous_quality" TEXT,
    "new_quality" TEXT,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "template_notices_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "template_notices_account_id_id_idx" ON "template_notices"("account_id", "id");
ALTER TABLE "template_notices" ADD CONSTRAINT "template_notices_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Which user marked which notice read.
CREATE TABLE "template_notice_reads" (
    "notice_id" BIGINT NOT NULL,
    "user_id" UUID NOT NULL,
    "read_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "template_notice_reads_pkey" PRIMARY KEY ("notice_id", "user_id")
);
CREATE INDEX "template_notice_reads_user_id_idx" ON "template_notice_reads"("user_id");
ALTER TABLE "template_notice_reads" ADD CONSTRAINT "template_notice_reads_notice_id_fkey" FOREIGN KEY ("notice_id") REFERENCES "template_notices"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "template_notice_reads" ADD CONSTRAINT "template_notice_reads_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "panel_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A key's name, shown in the panel's list.
ALTER TABLE "api_keys" ADD COLUMN "name" TEXT;

-- Rotation overlap: until previous_secret_expires_at, deliveries also carry a signature made with the previous
-- secret (X-PT-Signature-Previous), so a receiver still configured with it verifies in-flight retries.
ALTER TABLE "integrations" ADD COLUMN "previous_signing_secret" TEXT;
ALTER TABLE "integrations" ADD COLUMN "previous_secret_expires_at" TIMESTAMPTZ(3);

-- The panel's conversation list reads one account's inbound messages by time.
CREATE INDEX "inbound_messages_account_id_occurred_at_idx" ON "inbound_messages"("account_id", "occurred_at");
