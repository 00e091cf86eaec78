-- Admin Portal (issue 20): time-limited, single-use setup links for an organization's admins, and the portal
-- sessions opening one starts. The link's token and the session's cookie are stored as SHA-256 hashes only.
CREATE TABLE portal_links (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  environment_id uuid REFERENCES environments (id) ON DELETE CASCADE,
  intent text NOT NULL CHECK (intent IN ('sso', 'directory_sync', 'domain_verification', 'audit_logs', 'log_streams')),
  return_url text,
  prefix text NOT NULL,
  hint text NOT NULL,
  token_hash bytea NOT NULL CONSTRAINT portal_links__token_hash UNIQUE,
  expires_at timestamptz NOT NULL,
  session_lifetime_seconds integer NOT NULL CHECK (session_lifetime_seconds > 0),
  opened_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX portal_links__organization ON portal_links (organization_id, created_at, id);

-- One session per link (a link opens once). `sso_test` holds the pending round trip of a "test connection" sign-in.
CREATE TABLE portal_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  link_id uuid NOT NULL CONSTRAINT portal_sessions__link UNIQUE REFERENCES portal_links (id) ON DELETE CASCADE,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  environment_id uuid REFERENCES environments (id) ON DELETE CASCADE,
  cookie_hash bytea NOT NULL CONSTRAINT portal_sessions__cookie_hash UNIQUE,
  expires_at timestamptz NOT NULL,
  sso_test jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX portal_sessions__expires ON portal_sessions (expires_at);

-- The confidential OIDC client (created through the OIDC clients service) a portal's "test connection" signs in
-- with, one per environment; its secret sealed under the master key.
CREATE TABLE portal_test_clients (
  environment_id uuid PRIMARY KEY REFERENCES environments (id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  client_id text NOT NULL,
  secret_encrypted text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
