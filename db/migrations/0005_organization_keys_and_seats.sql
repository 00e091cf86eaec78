-- Organization keys (adok_…): credentials of an organization, limited to all of its tenants or to listed
-- ones; and tenant seats: a user outside the tenant's organizations given access to that one tenant.

CREATE TABLE organization_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text,
  prefix text NOT NULL,
  token_hash bytea NOT NULL CONSTRAINT organization_keys__token_hash UNIQUE,
  -- Fixed at create: the key scopes (every family but credential management) the creator held.
  scopes text[] NOT NULL DEFAULT '{}',
  all_tenants boolean NOT NULL DEFAULT true,
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX organization_keys__organization_id ON organization_keys (organization_id);

-- The tenants a key is limited to when all_tenants is false (a tenant must also stay linked to the
-- key's organization to be reachable).
CREATE TABLE organization_key_tenants (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  key_id uuid NOT NULL REFERENCES organization_keys (id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT organization_key_tenants__key_id_tenant_id UNIQUE (key_id, tenant_id)
);
CREATE INDEX organization_key_tenants__tenant_id ON organization_key_tenants (tenant_id);

-- A seat is invited by email (pending, with a join code stored as a hash) and taken by a user who joins
-- with the code. It gives access to its tenant while active and inside [valid_from, valid_until).
CREATE TABLE tenant_seats (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  email text NOT NULL,
  user_id uuid REFERENCES users (id) ON DELETE CASCADE,
  scopes text[] NOT NULL DEFAULT '{}',
  valid_from timestamptz,
  valid_until timestamptz,
  active boolean NOT NULL DEFAULT true,
  joined_at timestamptz,
  code_hash bytea CONSTRAINT tenant_seats__code_hash UNIQUE,
  code_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT tenant_seats__tenant_id_email UNIQUE (tenant_id, email),
  CONSTRAINT tenant_seats__validity CHECK (valid_from IS NULL OR valid_until IS NULL OR valid_until > valid_from)
);
CREATE UNIQUE INDEX tenant_seats__tenant_id_user_id ON tenant_seats (tenant_id, user_id) WHERE user_id IS NOT NULL;
CREATE INDEX tenant_seats__user_id ON tenant_seats (user_id);
