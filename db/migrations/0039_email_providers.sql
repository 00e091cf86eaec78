-- Email delivery providers of an environment (resend, sendgrid, ses, postmark, smtp): one record per kind and
-- environment, at most one of them active (the one messages go through). The secrets (API keys, SMTP password) are one
-- JSON object sealed with lib/crypto.ts encrypt() under MASTER_KEY; only masked hints are ever returned.
CREATE TABLE email_providers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  provider text NOT NULL CHECK (provider IN ('resend', 'sendgrid', 'ses', 'postmark', 'smtp')),
  active boolean NOT NULL DEFAULT false,
  config jsonb NOT NULL DEFAULT '{}',
  secrets_encrypted text NOT NULL,
  secret_hints jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT email_providers__environment_id_provider UNIQUE (environment_id, provider)
);
CREATE UNIQUE INDEX email_providers__one_active ON email_providers (environment_id) WHERE active;
