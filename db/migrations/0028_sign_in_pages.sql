-- The hosted sign-in pages: each environment's branding and sign-up setting, and the email verification codes of
-- sign-up.

-- Branding and sign-up per environment (no row: the defaults). Every change reaches each instance's Provider
-- snapshot through the iam_oidc NOTIFY, like oidc_settings.
CREATE TABLE sign_in_settings (
  environment_id uuid PRIMARY KEY REFERENCES environments (id) ON DELETE CASCADE,
  display_name text CHECK (char_length(display_name) BETWEEN 1 AND 100),
  logo_url text CHECK (logo_url LIKE 'https://%' AND char_length(logo_url) <= 2048),
  primary_color text CHECK (primary_color ~ '^#[0-9a-f]{6}$'),
  background_color text CHECK (background_color ~ '^#[0-9a-f]{6}$'),
  sign_up_enabled boolean NOT NULL DEFAULT false,
  default_locale text CHECK (default_locale IN ('en', 'de', 'fr')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER sign_in_settings_oidc AFTER INSERT OR DELETE OR UPDATE ON sign_in_settings FOR EACH ROW EXECUTE FUNCTION notify_oidc();

-- A sign-up's email verification code: SHA-256 of the code and the row id (never the code), 10 minutes, 5 attempts.
-- The user exists (email unverified) from the sign-up on; a verified code is deleted.
CREATE TABLE sign_up_codes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  email text NOT NULL,
  code_hash bytea NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sign_up_codes__user ON sign_up_codes (user_id);
CREATE INDEX sign_up_codes__environment ON sign_up_codes (environment_id);
