-- Signing secrets encrypted at rest (AES-256-GCM under SECRETS_KEYS, sealed by the application: this migration has
-- no key). Expand step: the sealed columns are added beside the clear ones, which become nullable. The release writes
-- only the sealed columns; `pnpm gateway secrets rotate-key`, run once every pod runs this release, seals the rows
-- still in clear text and empties their clear columns; the next release's contract migration drops them
-- (docs/deploy.md, "Encrypted signing secrets").
ALTER TABLE "integrations" ADD COLUMN "signing_secret_encrypted" TEXT;
ALTER TABLE "integrations" ADD COLUMN "previous_signing_secret_encrypted" TEXT;
ALTER TABLE "integrations" ALTER COLUMN "signing_secret" DROP NOT NULL;

-- Each secret in one form only. A pod of the previous release writing a clear secret into a sealed row (its
-- rotation) is refused instead of leaving two secrets that disagree.
ALTER TABLE "integrations" ADD CONSTRAINT "integrations_signing_secret_one_form"
  CHECK (("signing_secret" IS NULL) <> ("signing_secret_encrypted" IS NULL));
ALTER TABLE "integrations" ADD CONSTRAINT "integrations_previous_signing_secret_one_form"
  CHECK ("previous_signing_secret" IS NULL OR "previous_signing_secret_encrypted" IS NULL);

-- Previous secrets whose overlap is over are never used again (deliveries sign with them only until it ends).
UPDATE "integrations" SET "previous_signing_secret" = NULL, "previous_secret_expires_at" = NULL
WHERE "previous_signing_secret" IS NOT NULL
  AND ("previous_secret_expires_at" IS NULL OR "previous_secret_expires_at" <= now());
