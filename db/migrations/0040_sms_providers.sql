-- SMS providers of an environment: at most one per kind, tried in `rank` order (lowest first) when several are active.
-- Config is plain JSON (no secrets); the credentials are sealed under the master key, with masked hints beside them.
CREATE TABLE environment_sms_providers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  provider text NOT NULL CHECK (provider IN ('twilio', 'messagebird', 'sns', 'vonage')),
  active boolean NOT NULL DEFAULT true,
  rank integer NOT NULL CHECK (rank >= 0),
  config jsonb NOT NULL DEFAULT '{}',
  secrets_encrypted text NOT NULL,
  secret_hints jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment_id, provider)
);
