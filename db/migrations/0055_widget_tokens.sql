-- Widget tokens: short-lived JWTs for the embeddable widgets, issued for one directory user of an environment, one
-- widget kind, scopes and the origins allowed to call the widget API. The token itself is never stored; its `jti`
-- is this row's id, so a revoked token is refused on its next request (the widget API reads the row every time).
CREATE TABLE widget_tokens (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  organization_id uuid REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('user_profile', 'user_security', 'organization_members', 'api_keys', 'audit_log')),
  scopes text[] NOT NULL,
  origins text[] NOT NULL CHECK (cardinality(origins) > 0),
  issued_by_type text NOT NULL,
  issued_by_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  CHECK (expires_at > created_at)
);
CREATE INDEX widget_tokens__environment_created ON widget_tokens (environment_id, created_at DESC, id);
CREATE INDEX widget_tokens__user ON widget_tokens (user_id);
