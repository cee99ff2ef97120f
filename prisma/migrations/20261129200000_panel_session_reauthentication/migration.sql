-- Panel sessions: when the session last proved its password (sign-in, a confirmation) or did a sensitive action.
-- Sensitive actions (managing users, revealing a signing secret) ask for the password again once this is older
-- than PANEL_REAUTH_IDLE_MINUTES. Sessions open at deploy time count from their sign-in, not from the migration.
-- Expand only: pods of the previous release do not write the column, and its default fits their new sessions.
ALTER TABLE "panel_sessions" ADD COLUMN "reauthenticated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
UPDATE "panel_sessions" SET "reauthenticated_at" = "created_at";
