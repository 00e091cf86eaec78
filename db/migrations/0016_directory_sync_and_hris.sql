-- Directory sync: deprovisioning that no code path can forget, future-dated lifecycle changes, and the HR records
-- of employees (directory users) and departments (directory groups).

-- A user that went from active to inactive, or was deleted, waits here until the environment's `directory-sync`
-- process has deprovisioned it (memberships, credentials). A deleted user's memberships and tokens are gone with
-- it (cascade): `removed` holds what they were, recorded by the trigger before the delete.
CREATE TABLE directory_deprovisionings (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  -- No foreign key: the deprovisioning of a deleted user outlives it.
  user_id uuid NOT NULL,
  reason text NOT NULL CHECK (reason IN ('deactivated', 'deleted', 'terminated')),
  removed jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(removed) = 'object'),
  created_at timestamptz NOT NULL DEFAULT now(),
  done_at timestamptz
);
CREATE INDEX directory_deprovisionings__pending ON directory_deprovisionings (environment_id, created_at) WHERE done_at IS NULL;
CREATE INDEX directory_deprovisionings__pending_created ON directory_deprovisionings (created_at) WHERE done_at IS NULL;

-- Future-dated changes of a user's `active` (an HR prehire's start, a termination date), applied by the process
-- when due. At most one pending change per user and action: scheduling again moves it.
CREATE TABLE directory_lifecycle_changes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  action text NOT NULL CHECK (action IN ('activate', 'deactivate')),
  due_at timestamptz NOT NULL,
  applied_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX directory_lifecycle_changes__pending ON directory_lifecycle_changes (user_id, action) WHERE applied_at IS NULL;
CREATE INDEX directory_lifecycle_changes__due ON directory_lifecycle_changes (environment_id, due_at) WHERE applied_at IS NULL;
CREATE INDEX directory_lifecycle_changes__due_at ON directory_lifecycle_changes (due_at) WHERE applied_at IS NULL;

-- Departments are directory groups, employees directory users: one record each, with the HR fields here.
CREATE TABLE hris_departments (
  group_id uuid PRIMARY KEY REFERENCES groups (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  code text,
  type text NOT NULL DEFAULT 'DEPARTMENT' CHECK (type IN ('DEPARTMENT', 'TEAM', 'DIVISION', 'COST_CENTER', 'BUSINESS_UNIT')),
  -- A group deleted through the directory API detaches its children and employees (the HRIS API refuses with 409).
  parent_id uuid REFERENCES hris_departments (group_id) ON DELETE SET NULL,
  manager_id uuid REFERENCES users (id) ON DELETE SET NULL,
  cost_center text,
  active boolean NOT NULL DEFAULT true,
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (parent_id IS DISTINCT FROM group_id)
);
CREATE INDEX hris_departments__environment_created ON hris_departments (environment_id, created_at, group_id);
CREATE INDEX hris_departments__parent ON hris_departments (parent_id);

CREATE TABLE hris_employees (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  employee_number text,
  employment_type text CHECK (employment_type IN ('FULL_TIME', 'PART_TIME', 'CONTRACTOR', 'INTERN', 'TEMPORARY', 'OTHER')),
  employment_status text NOT NULL CHECK (employment_status IN ('PREHIRE', 'ACTIVE', 'LEAVE', 'TERMINATED')),
  start_date date,
  termination_date date,
  department_id uuid REFERENCES hris_departments (group_id) ON DELETE SET NULL,
  manager_id uuid REFERENCES users (id) ON DELETE SET NULL,
  cost_center text,
  division text,
  organization text,
  work_location jsonb,
  custom_fields jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(custom_fields) = 'object'),
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (manager_id IS DISTINCT FROM user_id)
);
CREATE UNIQUE INDEX hris_employees__environment_employee_number ON hris_employees (environment_id, employee_number) WHERE employee_number IS NOT NULL;
CREATE INDEX hris_employees__environment_created ON hris_employees (environment_id, created_at, user_id);
CREATE INDEX hris_employees__department ON hris_employees (department_id);
CREATE INDEX hris_employees__manager ON hris_employees (manager_id);

-- Whatever code path deactivates or deletes a user (the directory API, SCIM, HRIS, SQL), its deprovisioning is
-- recorded in the same transaction, with the start of the environment's process and a message to it (the outbox).
CREATE FUNCTION directory_deprovision() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tenant uuid;
  why text;
  removed jsonb := '{}';
  process text := 'directory-sync:' || OLD.environment_id;
BEGIN
  SELECT tenant_id INTO tenant FROM environments WHERE id = OLD.environment_id;
  -- The environment itself is being deleted (a cascade): nothing of it is left to deprovision.
  IF NOT FOUND THEN RETURN OLD; END IF;
  IF TG_OP = 'DELETE' THEN
    why := 'deleted';
    removed := jsonb_build_object(
      'groups', coalesce((SELECT jsonb_agg(group_id ORDER BY group_id) FROM group_members WHERE user_id = OLD.id), '[]'),
      'personalAccessTokens', coalesce((SELECT jsonb_agg(id ORDER BY id) FROM personal_access_tokens WHERE user_id = OLD.id AND revoked_at IS NULL), '[]'));
  ELSIF EXISTS (SELECT 1 FROM hris_employees WHERE user_id = OLD.id AND employment_status = 'TERMINATED') THEN
    why := 'terminated';
  ELSE
    why := 'deactivated';
  END IF;
  INSERT INTO directory_deprovisionings (environment_id, user_id, reason, removed) VALUES (OLD.environment_id, OLD.id, why, removed);
  INSERT INTO process_outbox (action, kind, process_id, tenant_id, payload)
    VALUES ('start', 'directory-sync', process, tenant, jsonb_build_object('environmentId', OLD.environment_id));
  INSERT INTO process_outbox (action, kind, process_id, topic, payload)
    VALUES ('signal', 'directory-sync', process, 'directory', jsonb_build_object('type', 'deprovision', 'userId', OLD.id));
  RETURN OLD;
END;
$$;
-- BEFORE DELETE: the memberships and tokens that cascade with the user are still there to be recorded.
CREATE TRIGGER users_deprovision_delete BEFORE DELETE ON users FOR EACH ROW EXECUTE FUNCTION directory_deprovision();
CREATE TRIGGER users_deprovision_deactivate AFTER UPDATE OF active ON users FOR EACH ROW
  WHEN (OLD.active AND NOT NEW.active)
  EXECUTE FUNCTION directory_deprovision();

