-- Pix orders (issue 28; docs/decisions.md, "Pix orders"). Every accepted `pix_order` send records an order; the
-- integrator (API) or staff (panel) update it with `order_status` messages. Expand only: the previous release neither
-- reads nor writes these tables or the new column.

-- One row per (account, reference_id). `state`: claimed (a send holds the reference, before Meta) | open (its
-- order_details message was recorded accepted, in the same transaction; the only visible state) | unconfirmed (the
-- provider was called without an answer: the reference stays taken, the order invisible). The claim follows the
-- Idempotency-Key's liveness rules: claim_owner is the process lease, provider_called_at the provider mark.
CREATE TABLE orders (
  id bigserial NOT NULL,
  account_id uuid NOT NULL,
  reference_id text NOT NULL,
  state text NOT NULL,
  phone_number_id text NOT NULL,
  recipient text NOT NULL,
  template_name text NOT NULL,
  language text NOT NULL,
  goods_type text NOT NULL,
  items jsonb NOT NULL,
  subtotal bigint NOT NULL,
  tax bigint NOT NULL,
  total_amount bigint NOT NULL,
  payment_settings jsonb NOT NULL,
  client_ref text,
  message_wamid text,
  order_status text NOT NULL DEFAULT 'pending',
  payment_status text NOT NULL DEFAULT 'pending',
  payment_timestamp bigint,
  description text,
  claim_owner uuid,
  claim_request_id text,
  provider_called_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  opened_at timestamptz(3),
  updated_at timestamptz(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT orders_pkey PRIMARY KEY (id)
);
CREATE UNIQUE INDEX orders_account_id_reference_id_key ON orders (account_id, reference_id);
ALTER TABLE orders ADD CONSTRAINT orders_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id)
  ON DELETE CASCADE ON UPDATE CASCADE;
-- The list (GET /public/v1/orders, the panel's Pedidos): open orders newest first, with or without a status filter.
CREATE INDEX orders_open_idx ON orders (account_id, id DESC) WHERE state = 'open';
CREATE INDEX orders_open_status_idx ON orders (account_id, order_status, id DESC) WHERE state = 'open';

-- An order's history: its order_details message, then each order_status message. A row `claimed` is also the status
-- update's claim (at most one per order, partial unique index); `accepted` rows are the history; `unconfirmed` ones
-- were sent without an answer. A message's outcome is read from `messages` by wamid.
CREATE TABLE order_messages (
  id bigserial NOT NULL,
  order_id bigint NOT NULL,
  kind text NOT NULL,
  state text NOT NULL,
  wamid text,
  order_status text NOT NULL,
  payment_status text,
  payment_timestamp bigint,
  description text,
  body_text text NOT NULL,
  actor text NOT NULL,
  request_id text,
  claim_owner uuid,
  provider_called_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  accepted_at timestamptz(3),
  updated_at timestamptz(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT order_messages_pkey PRIMARY KEY (id)
);
CREATE UNIQUE INDEX order_messages_wamid_key ON order_messages (wamid);
CREATE INDEX order_messages_order_id_id_idx ON order_messages (order_id, id);
ALTER TABLE order_messages ADD CONSTRAINT order_messages_order_id_fkey FOREIGN KEY (order_id) REFERENCES orders (id)
  ON DELETE CASCADE ON UPDATE CASCADE;
-- One status update in flight per order: a second concurrent update is answered 409 order_update_in_flight.
CREATE UNIQUE INDEX order_messages_one_claim ON order_messages (order_id) WHERE state = 'claimed';

-- A received payment-method answer (interactive.payment_method): its fields, else null. Cleared by retention with
-- the message's content.
ALTER TABLE inbound_messages ADD COLUMN payment jsonb;
CREATE INDEX inbound_messages_payment_ref_idx ON inbound_messages (account_id, (payment ->> 'reference_id'))
  WHERE payment IS NOT NULL;
