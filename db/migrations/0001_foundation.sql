-- Foundation: the tenancy hierarchy, principals, signing keys, audit log and event stream.

CREATE TABLE organizations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  description text,
  billing_email text,
  logo_uri text,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE tenants (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  description text,
  company text,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE organization_tenants (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, tenant_id)
);
CREATE INDEX organization_tenants__tenant_id ON organization_tenants (tenant_id);

CREATE TABLE projects (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name text NOT NULL,
  type text NOT NULL CHECK (type IN ('web', 'm2m', 'mcp')),
  link text,
  description text,
  logo_uri text,
  default_environment_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects__tenant_id ON projects (tenant_id);

CREATE TABLE environments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text,
  weight integer,
  is_live boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX environments__project_id ON environments (project_id);
ALTER TABLE projects ADD CONSTRAINT projects__default_environment_id
  FOREIGN KEY (default_environment_id) REFERENCES environments (id) DEFERRABLE INITIALLY DEFERRED;

-- Directory users of an environment (SCIM-like shape). Multi-valued attributes are jsonb arrays of {id, ...}.
CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  external_id text,
  user_name text NOT NULL,
  display_name text,
  nick_name text,
  profile_url text,
  title text,
  user_type text,
  preferred_language text,
  locale text,
  timezone text,
  active boolean NOT NULL DEFAULT true,
  names jsonb,
  photos jsonb NOT NULL DEFAULT '[]',
  phone_numbers jsonb NOT NULL DEFAULT '[]',
  addresses jsonb NOT NULL DEFAULT '[]',
  emails jsonb NOT NULL DEFAULT '[]',
  verifications jsonb NOT NULL DEFAULT '[]',
  provider text NOT NULL DEFAULT 'local',
  -- Management API scopes this user may hold (operators of the service); a PAT carries a subset.
  management_scopes text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT users__environment_id_user_name UNIQUE (environment_id, user_name)
);

CREATE TABLE organization_members (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role text NOT NULL DEFAULT 'member',
  active boolean NOT NULL DEFAULT true,
  invited_at timestamptz,
  joined_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT organization_members__organization_id_user_id UNIQUE (organization_id, user_id)
);
CREATE INDEX organization_members__user_id ON organization_members (user_id);

CREATE TABLE service_accounts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  client_id text NOT NULL CONSTRAINT service_accounts__client_id UNIQUE,
  name text NOT NULL,
  description text,
  secret_hash bytea NOT NULL,
  secret_prefix text NOT NULL,
  scopes text[] NOT NULL DEFAULT '{}',
  active boolean NOT NULL DEFAULT true,
  last_used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX service_accounts__organization_id ON service_accounts (organization_id);

CREATE TABLE personal_access_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  name text NOT NULL,
  slug text NOT NULL,
  prefix text NOT NULL,
  token_hash bytea NOT NULL CONSTRAINT personal_access_tokens__token_hash UNIQUE,
  scopes text[] NOT NULL DEFAULT '{}',
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX personal_access_tokens__user_id ON personal_access_tokens (user_id);

-- ES256 keys that sign management access tokens. The newest active key signs; retired keys stay
-- published (and accepted) until every token they signed has expired.
CREATE TABLE signing_keys (
  kid text PRIMARY KEY,
  algorithm text NOT NULL DEFAULT 'ES256',
  public_jwk jsonb NOT NULL,
  private_key_encrypted text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'retired')),
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz
);

-- Who did what to which resource, from where, with the before/after of changed fields.
CREATE TABLE audit_logs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  sequence bigint GENERATED ALWAYS AS IDENTITY,
  organization_id uuid,
  tenant_id uuid,
  environment_id uuid,
  actor_type text NOT NULL,
  actor_id text,
  action text NOT NULL,
  resource_type text NOT NULL,
  resource_id text,
  ip text,
  user_agent text,
  request_id text,
  changes jsonb,
  occurred_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_logs__tenant_id_sequence ON audit_logs (tenant_id, sequence);
CREATE INDEX audit_logs__organization_id_sequence ON audit_logs (organization_id, sequence);

-- The immutable event stream. tx_id records the writing transaction so readers can page in commit order.
CREATE TABLE events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  sequence bigint GENERATED ALWAYS AS IDENTITY,
  tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  type text NOT NULL,
  organization_id uuid,
  tenant_id uuid,
  environment_id uuid,
  actor jsonb NOT NULL,
  subject jsonb,
  data jsonb NOT NULL DEFAULT '{}',
  occurred_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX events__sequence ON events (sequence);
CREATE INDEX events__tenant_id_sequence ON events (tenant_id, sequence);

CREATE FUNCTION events_are_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'events are immutable: % is not allowed', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
CREATE TRIGGER events_immutable BEFORE UPDATE OR DELETE ON events
  FOR EACH ROW EXECUTE FUNCTION events_are_immutable();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_are_immutable();

-- One-off facts about this installation (e.g. that the first-start bootstrap ran).
CREATE TABLE service_state (
  key text PRIMARY KEY,
  value jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
