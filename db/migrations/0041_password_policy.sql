-- An environment's password policy (issue 19): one row per environment, none until it is saved (the service's
-- default rules apply then: 8 to 256 characters, no class required, password sign-in on). The floor of 8 follows
-- NIST SP 800-63B; 256 is the service's ceiling (lib/passwords.ts).
CREATE TABLE password_policies (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL UNIQUE REFERENCES environments (id) ON DELETE CASCADE,
  min_length integer NOT NULL DEFAULT 8 CHECK (min_length BETWEEN 8 AND 256),
  require_lowercase boolean NOT NULL DEFAULT false,
  require_uppercase boolean NOT NULL DEFAULT false,
  require_number boolean NOT NULL DEFAULT false,
  require_symbol boolean NOT NULL DEFAULT false,
  password_auth_enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
