-- Per-message pricing and costs (docs/decisions.md, "Per-message pricing and costs (issue 18)").

-- The deployment's rate card: the estimated price in BRL of one charged message (Meta's `pricing.type` `regular`)
-- of a pricing category, from a day on (São Paulo calendar). A day is priced by the latest row in force on it, so
-- a new rate never re-prices the days before it. Changed with `pnpm gateway pricing set-rate`.
CREATE TABLE pricing_rates (
  category text NOT NULL,
  effective_from date NOT NULL,
  rate_brl numeric(10,4) NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (category, effective_from)
);

-- An account's own rates (a negotiated price, another market); they win over the deployment's for that category.
CREATE TABLE account_pricing_rates (
  account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE ON UPDATE CASCADE,
  category text NOT NULL,
  effective_from date NOT NULL,
  rate_brl numeric(10,4) NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (account_id, category, effective_from)
);

-- The defaults: Meta's rate card for recipients in Brazil (USD marketing 0.0625, utility and authentication 0.0068,
-- read on 2026-11-25 from third-party copies of Meta's card effective 2026-01-01 and 2026-10-01), converted at
-- R$ 5,36 per US$ (an assumption, not Meta's BRL card: unverified). Service messages are charged only past the
-- number's free tier from 2026-10-01 (Meta reports them `regular` then), at the utility rate [BSP-reported].
-- Brazil has no authentication-international rate: that category is priced like authentication until configured.
-- marketing_lite (Marketing Messages API) is billed at the marketing rate.
INSERT INTO pricing_rates (category, effective_from, rate_brl) VALUES
  ('marketing', '2025-07-01', 0.3350),
  ('marketing_lite', '2025-07-01', 0.3350),
  ('utility', '2025-07-01', 0.0364),
  ('authentication', '2025-07-01', 0.0364),
  ('authentication-international', '2025-07-01', 0.0364),
  ('service', '2025-07-01', 0.0364);

-- The cost ledger's daily rollup: priced messages per account, São Paulo day of the send, number, pricing category
-- and type ('' when Meta's pricing lacked the field), and how many of them failed afterwards (Meta charges only
-- delivered messages). Filled by the dispatcher from messages.pricing for closed days (never on the status path);
-- the days from pricing_rollup_state.rolled_before on are read from messages directly.
CREATE TABLE message_pricing_days (
  account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE ON UPDATE CASCADE,
  day date NOT NULL,
  phone_number_id text NOT NULL,
  category text NOT NULL,
  pricing_type text NOT NULL,
  messages integer NOT NULL,
  failed integer NOT NULL,
  PRIMARY KEY (account_id, day, phone_number_id, category, pricing_type)
);

-- How far the rollup got: every day before rolled_before is in message_pricing_days for every account. One row.
CREATE TABLE pricing_rollup_state (
  id text NOT NULL,
  rolled_before date NOT NULL,
  updated_at timestamptz(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (id)
);
