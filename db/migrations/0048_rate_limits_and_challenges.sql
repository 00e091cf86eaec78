-- Issue 19's rate limit and bot challenge.
--
-- sign_in_rate_counters: the rate-limit policy's attempts per environment, flow and key (`ip:…`, `ip_user:…`,
-- `user:…`) in fixed windows from a key's first attempt; one upsert per attempt, shared by every instance. Counters
-- are throw-away (a lost one only forgets some attempts of one window), so the table is UNLOGGED (no WAL on the hot
-- path) and has no foreign key (no look-up per attempt); the OIDC clean-up deletes the ended ones, and those of a
-- deleted environment with them.
CREATE UNLOGGED TABLE sign_in_rate_counters (
  environment_id uuid NOT NULL,
  flow text NOT NULL,
  key text NOT NULL,
  window_ends_at timestamptz NOT NULL,
  hits integer NOT NULL,
  PRIMARY KEY (environment_id, flow, key)
);
CREATE INDEX sign_in_rate_counters__window_ends_at ON sign_in_rate_counters (window_ends_at);

-- add_ons: an environment's add-ons (SPEC "Add-ons"), one record per kind; today the bot-challenge kinds (Cloudflare
-- Turnstile, hCaptcha, reCAPTCHA). At most one add-on of a category is active. Secrets are one JSON object sealed
-- with lib/crypto.ts encrypt() under MASTER_KEY, shown only as hints. The Provider snapshot carries the active
-- bot challenge (kind and site key) to the sign-in pages, so a change sends the environment id on `iam_oidc`.
CREATE TABLE add_ons (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('turnstile', 'hcaptcha', 'recaptcha')),
  category text NOT NULL CHECK (category IN ('bot_challenge')),
  active boolean NOT NULL DEFAULT false,
  config jsonb NOT NULL DEFAULT '{}',
  secrets_encrypted text,
  secret_hints jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT add_ons__environment_id_kind UNIQUE (environment_id, kind)
);
CREATE UNIQUE INDEX add_ons__one_active_per_category ON add_ons (environment_id, category) WHERE active;

CREATE TRIGGER add_ons_oidc AFTER INSERT OR DELETE OR UPDATE ON add_ons
  FOR EACH ROW EXECUTE FUNCTION notify_oidc();
