-- Provisioning tokens (adscim_… for SCIM 2.0 at /v1/scim/v2, adhris_… for HRIS at /v1/hris/v1): each selects its
-- environment, like an environment API secret (0013), and is refused everywhere at once when revoked, rotated out
-- or deleted (the same iam_credentials NOTIFY). And the SCIM attributes of a user that the directory has no column
-- for (`users.scim`).

CREATE TABLE provisioning_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text,
  kind text NOT NULL CHECK (kind IN ('scim', 'hris')),
  prefix text NOT NULL,
  hint text NOT NULL,
  token_hash bytea NOT NULL CONSTRAINT provisioning_tokens__token_hash UNIQUE,
  -- After a rotation the previous token keeps working until previous_expires_at.
  previous_token_hash bytea CONSTRAINT provisioning_tokens__previous_token_hash UNIQUE,
  previous_expires_at timestamptz,
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX provisioning_tokens__environment ON provisioning_tokens (environment_id, created_at, id);

CREATE TRIGGER provisioning_tokens_credentials AFTER DELETE ON provisioning_tokens FOR EACH ROW EXECUTE FUNCTION notify_credentials('id');
CREATE TRIGGER provisioning_tokens_credentials_update AFTER UPDATE OF token_hash, previous_token_hash, previous_expires_at, expires_at, revoked_at
  ON provisioning_tokens FOR EACH ROW
  WHEN (OLD.token_hash IS DISTINCT FROM NEW.token_hash OR OLD.previous_token_hash IS DISTINCT FROM NEW.previous_token_hash
    OR OLD.previous_expires_at IS DISTINCT FROM NEW.previous_expires_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
    OR OLD.revoked_at IS DISTINCT FROM NEW.revoked_at)
  EXECUTE FUNCTION notify_credentials('id');

-- SCIM User attributes without a directory column: the primary flags of emails, phoneNumbers and addresses (by
-- position), and ims, entitlements, roles and x509Certificates as sent.
ALTER TABLE users ADD COLUMN scim jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(scim) = 'object');
