-- Environment API secrets (adenv_…), the AuthZEN decision log, and the notifications that keep every instance's
-- compiled model of an environment current.

CREATE TABLE api_secrets (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text,
  -- What the secret may be used for: 'authzen' (/access/v1), 'mcp' (runtime trust-store endpoints).
  purposes text[] NOT NULL,
  prefix text NOT NULL,
  hint text NOT NULL,
  secret_hash bytea NOT NULL CONSTRAINT api_secrets__secret_hash UNIQUE,
  -- After a rotation the previous secret keeps working until previous_expires_at.
  previous_secret_hash bytea CONSTRAINT api_secrets__previous_secret_hash UNIQUE,
  previous_expires_at timestamptz,
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_secrets__environment ON api_secrets (environment_id, created_at, id);

CREATE TRIGGER api_secrets_credentials AFTER DELETE ON api_secrets FOR EACH ROW EXECUTE FUNCTION notify_credentials('id');
CREATE TRIGGER api_secrets_credentials_update AFTER UPDATE OF secret_hash, previous_secret_hash, previous_expires_at, expires_at, revoked_at, purposes
  ON api_secrets FOR EACH ROW
  WHEN (OLD.secret_hash IS DISTINCT FROM NEW.secret_hash OR OLD.previous_secret_hash IS DISTINCT FROM NEW.previous_secret_hash
    OR OLD.previous_expires_at IS DISTINCT FROM NEW.previous_expires_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
    OR OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.purposes IS DISTINCT FROM NEW.purposes)
  EXECUTE FUNCTION notify_credentials('id');

CREATE TABLE authzen_decisions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  decided_at timestamptz NOT NULL,
  -- 'evaluation', 'evaluations', 'search/subject', 'search/resource', 'search/action'
  endpoint text NOT NULL,
  subject_type text,
  subject_id text,
  action text,
  resource_type text,
  resource_id text,
  decision boolean NOT NULL,
  -- Why: the explanation of the decision (role, grant, condition), as given to a caller that asks for it.
  reason jsonb NOT NULL DEFAULT '{}',
  request_id text,
  api_secret_id uuid,
  duration_us integer
);
CREATE INDEX authzen_decisions__environment ON authzen_decisions (environment_id, seq DESC);
CREATE INDEX authzen_decisions__decided ON authzen_decisions (decided_at);

-- Every change to what decisions read sends the environment id on `iam_models` (delivered at commit, repeated
-- ids of one transaction folded by Postgres); each instance drops its compiled model of that environment.
CREATE FUNCTION notify_model() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM pg_notify('iam_models', OLD.environment_id::text); END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN PERFORM pg_notify('iam_models', NEW.environment_id::text); END IF;
  RETURN NULL;
END;
$$;
-- Users: everything but sign-in bookkeeping columns matters (active, names, emails, attributes…).
CREATE TRIGGER users_model AFTER INSERT OR DELETE OR UPDATE ON users FOR EACH ROW EXECUTE FUNCTION notify_model();
CREATE TRIGGER groups_model AFTER INSERT OR DELETE OR UPDATE ON groups FOR EACH ROW EXECUTE FUNCTION notify_model();
CREATE TRIGGER group_members_model AFTER INSERT OR DELETE OR UPDATE ON group_members FOR EACH ROW EXECUTE FUNCTION notify_model();
CREATE TRIGGER rbac_resource_types_model AFTER INSERT OR DELETE OR UPDATE ON rbac_resource_types FOR EACH ROW EXECUTE FUNCTION notify_model();
CREATE TRIGGER rbac_actions_model AFTER INSERT OR DELETE OR UPDATE ON rbac_actions FOR EACH ROW EXECUTE FUNCTION notify_model();
CREATE TRIGGER rbac_resources_model AFTER INSERT OR DELETE OR UPDATE ON rbac_resources FOR EACH ROW EXECUTE FUNCTION notify_model();
CREATE TRIGGER rbac_roles_model AFTER INSERT OR DELETE OR UPDATE ON rbac_roles FOR EACH ROW EXECUTE FUNCTION notify_model();
CREATE TRIGGER rbac_role_permissions_model AFTER INSERT OR DELETE OR UPDATE ON rbac_role_permissions FOR EACH ROW EXECUTE FUNCTION notify_model();
CREATE TRIGGER rbac_role_inheritance_model AFTER INSERT OR DELETE OR UPDATE ON rbac_role_inheritance FOR EACH ROW EXECUTE FUNCTION notify_model();
CREATE TRIGGER rbac_assignments_model AFTER INSERT OR DELETE OR UPDATE ON rbac_assignments FOR EACH ROW EXECUTE FUNCTION notify_model();
