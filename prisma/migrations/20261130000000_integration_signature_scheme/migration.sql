-- How an integration's webhooks are signed (issue 21): 'pt' is the contract's X-PT-Signature (spec 5.4) and the
-- default, so every existing integration keeps its requests byte for byte; 'standard-webhooks' sends the Standard
-- Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) instead of X-PT-Timestamp/X-PT-Signature.
ALTER TABLE "integrations" ADD COLUMN "signature_scheme" TEXT NOT NULL DEFAULT 'pt';
ALTER TABLE "integrations" ADD CONSTRAINT "integrations_signature_scheme_known"
  CHECK ("signature_scheme" IN ('pt', 'standard-webhooks'));
