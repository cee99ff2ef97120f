-- An Idempotency-Key keeps the send's domain outcome (JSON), rendered by the API at its edge; no longer its HTTP
-- answer. Expand step: response_status and response_body stay (unwritten) for the pods of the previous release
-- during a rolling update, and are dropped by the next release's contract migration (docs/decisions.md,
-- "Idempotency outcomes").
ALTER TABLE idempotency_keys ADD COLUMN outcome jsonb;

-- Keys completed before this release: their outcome read from the answer they kept.
UPDATE idempotency_keys SET outcome = CASE
    WHEN response_status = 200 THEN jsonb_build_object('kind', 'sent', 'message', jsonb_build_object(
      'messageId', response_body::jsonb #>> '{data,message_id}',
      'to', response_body::jsonb #>> '{data,to}',
      'type', response_body::jsonb #>> '{data,type}',
      'phoneNumberId', response_body::jsonb #>> '{data,phone_number_id}',
      'clientRef', response_body::jsonb #>> '{data,client_ref}'))
    ELSE jsonb_build_object('kind', 'unconfirmed', 'messageId', response_body::jsonb #>> '{error,message_id}')
  END
WHERE state = 'completed' AND response_status IS NOT NULL AND response_body IS NOT NULL;
