-- Billing (SPEC "Billing"): per environment, a catalog of features and plans (bundling feature values with prices),
-- the subscriptions of organizations to plans (set through the API, or synced from Stripe, the environment's
-- `stripe` payments add-on), and each organization's effective entitlements, materialized so that
-- `GET …/billing/entitlements/{organization}` and AuthZEN conditions (`subject.entitlements`) read one row.

-- The add-on kinds and categories of issue 20 (bot challenges, payments, customer data, analytics): one list, so
-- the migrations adding kinds can run in either order.
ALTER TABLE add_ons DROP CONSTRAINT add_ons_kind_check;
ALTER TABLE add_ons DROP CONSTRAINT add_ons_category_check;
ALTER TABLE add_ons ADD CONSTRAINT add_ons_kind_check CHECK (kind IN ('turnstile', 'hcaptcha', 'recaptcha', 'stripe', 'segment', 'analytics'));
ALTER TABLE add_ons ADD CONSTRAINT add_ons_category_check CHECK (category IN ('bot_challenge', 'payments', 'customer_data', 'analytics'));

CREATE TABLE billing_features (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  key text NOT NULL,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('boolean', 'limit', 'metered')),
  unit text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT billing_features__environment_id_key UNIQUE (environment_id, key)
);

-- `features`: { <feature key>: value } (true for a boolean feature, an integer for a limit or the included units of
-- a metered one). Stripe ids are filled by the sync (products are created with the id `iam_<plan id>`).
CREATE TABLE billing_plans (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  key text NOT NULL,
  name text NOT NULL,
  description text,
  features jsonb NOT NULL DEFAULT '{}',
  stripe_product_id text,
  synced_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT billing_plans__environment_id_key UNIQUE (environment_id, key)
);

-- Prices are immutable, as in Stripe: changing a plan's prices archives the old ones (active = false) and adds new.
CREATE TABLE billing_prices (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  plan_id uuid NOT NULL REFERENCES billing_plans (id) ON DELETE CASCADE,
  currency text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
  amount bigint NOT NULL CHECK (amount >= 0),
  interval text NOT NULL CHECK (interval IN ('month', 'year')),
  active boolean NOT NULL DEFAULT true,
  stripe_price_id text,
  -- An archived price whose Stripe price the sync archived too (`active: false` in Stripe).
  stripe_archived boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_prices__plan_id ON billing_prices (plan_id);
CREATE UNIQUE INDEX billing_prices__stripe_price_id ON billing_prices (environment_id, stripe_price_id);

CREATE TABLE billing_subscriptions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  plan_id uuid NOT NULL REFERENCES billing_plans (id),
  status text NOT NULL CHECK (status IN ('trialing', 'active', 'past_due', 'unpaid', 'paused', 'incomplete', 'incomplete_expired', 'canceled')),
  source text NOT NULL CHECK (source IN ('api', 'stripe')),
  stripe_subscription_id text,
  stripe_customer_id text,
  current_period_end timestamptz,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  -- The `created` time of the last Stripe event applied: an older event arriving late changes nothing.
  stripe_event_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_subscriptions__organization ON billing_subscriptions (environment_id, organization_id);
CREATE INDEX billing_subscriptions__plan_id ON billing_subscriptions (plan_id);
CREATE UNIQUE INDEX billing_subscriptions__stripe_subscription_id ON billing_subscriptions (environment_id, stripe_subscription_id);

-- Each organization's effective entitlements (the union of the features of its subscriptions in force), rewritten in
-- the transaction of every change that affects them; a real change reaches every instance's AuthZEN models.
CREATE TABLE billing_entitlements (
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  entitlements jsonb NOT NULL,
  plans text[] NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (environment_id, organization_id)
);
CREATE TRIGGER billing_entitlements_model AFTER INSERT OR DELETE ON billing_entitlements FOR EACH ROW EXECUTE FUNCTION notify_model();
CREATE TRIGGER billing_entitlements_model_update AFTER UPDATE ON billing_entitlements
  FOR EACH ROW WHEN (OLD.entitlements IS DISTINCT FROM NEW.entitlements) EXECUTE FUNCTION notify_model();

-- Stripe events applied (webhooks are at-least-once): a replayed event id changes nothing.
CREATE TABLE billing_stripe_events (
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  id text NOT NULL,
  type text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (environment_id, id)
);

-- The reconcile process of an environment (`billing-sync:<environment id>`): its interval and last outcome.
CREATE TABLE billing_syncs (
  environment_id uuid PRIMARY KEY REFERENCES environments (id) ON DELETE CASCADE,
  interval_ms integer NOT NULL CHECK (interval_ms > 0),
  requested_at timestamptz NOT NULL DEFAULT now(),
  last_synced_at timestamptz,
  last_error text,
  products_pushed integer NOT NULL DEFAULT 0,
  prices_pushed integer NOT NULL DEFAULT 0,
  subscriptions_pulled integer NOT NULL DEFAULT 0
);
