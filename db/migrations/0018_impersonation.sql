-- Impersonation: time-boxed grants that let a support operator act as a directory user with a signed token, the
-- per-environment limits of those grants, and the audit log's `on behalf of` (who a request acted for).

CREATE TABLE impersonation_settings (
  environment_id uuid PRIMARY KEY REFERENCES environments (id) ON DELETE CASCADE,
  max_duration_minutes integer NOT NULL DEFAULT 15 CHECK (max_duration_minutes BETWEEN 1 AND 1440),
  notify_user boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE impersonation_grants (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- The operator who acts: a user, service account or organization key (no foreign key: it may be deleted later).
  actor_type text NOT NULL,
  actor_id uuid NOT NULL,
  reason text NOT NULL,
  -- The `jti` of the grant's token (one token per grant).
  token_id uuid NOT NULL CONSTRAINT impersonation_grants__token_id UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  -- Set by the impersonation-expiry process once expires_at has passed (with impersonation.grant.expired).
  expired_at timestamptz,
  revoked_at timestamptz,
  -- Who revoked it: a principal (its uuid) or the system (`system`, `directory-sync` on deprovisioning).
  revoked_by_type text,
  revoked_by_id text,
  revoke_reason text,
  CHECK (expires_at > created_at)
);
CREATE INDEX impersonation_grants__environment ON impersonation_grants (environment_id, created_at, id);
CREATE INDEX impersonation_grants__pending ON impersonation_grants (created_at) WHERE expired_at IS NULL AND revoked_at IS NULL;

-- A revoked grant's token is refused on the next request on every instance: its cached verification is evicted.
CREATE TRIGGER impersonation_grants_credentials AFTER DELETE ON impersonation_grants FOR EACH ROW EXECUTE FUNCTION notify_credentials('id');
CREATE TRIGGER impersonation_grants_credentials_update AFTER UPDATE OF revoked_at, expired_at, expires_at ON impersonation_grants FOR EACH ROW
  WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.expired_at IS DISTINCT FROM NEW.expired_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at)
  EXECUTE FUNCTION notify_credentials('id');

-- Who a request acted for when its actor impersonated a user (null otherwise).
ALTER TABLE audit_logs ADD COLUMN on_behalf_of_type text, ADD COLUMN on_behalf_of_id text;
