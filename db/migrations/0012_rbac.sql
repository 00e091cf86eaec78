-- The access model of an environment: resource types with their actions (a permission is an action on a resource
-- type, written `<type>:<action>`), stored resource instances with attributes, roles with permissions (each
-- optionally conditioned by CEL) and inheritance, and assignments of roles to users or groups (each optionally
-- limited to listed resource instances and optionally conditioned by CEL).

CREATE TABLE rbac_resource_types (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  -- What AuthZEN requests name as `resource.type`.
  key text NOT NULL,
  name text,
  description text,
  -- Only stored instances are decided on (deny for an unknown id); false lets unknown ids be decided on request properties.
  stored_instances_only boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT rbac_resource_types__environment_key UNIQUE (environment_id, key)
);

CREATE TABLE rbac_actions (
  resource_type_id uuid NOT NULL REFERENCES rbac_resource_types (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL,
  -- What AuthZEN requests name as `action.name`.
  name text NOT NULL,
  description text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (resource_type_id, name)
);

CREATE TABLE rbac_resources (
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  resource_type_id uuid NOT NULL REFERENCES rbac_resource_types (id) ON DELETE CASCADE,
  -- The id the client chose (AuthZEN `resource.id`).
  resource_id text NOT NULL,
  attributes jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(attributes) = 'object'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (resource_type_id, resource_id)
);
CREATE INDEX rbac_resources__environment ON rbac_resources (environment_id);

CREATE TABLE rbac_roles (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  key text NOT NULL,
  name text,
  description text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT rbac_roles__environment_key UNIQUE (environment_id, key)
);

CREATE TABLE rbac_role_permissions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  role_id uuid NOT NULL REFERENCES rbac_roles (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL,
  resource_type_id uuid NOT NULL REFERENCES rbac_resource_types (id) ON DELETE CASCADE,
  action text NOT NULL,
  -- A CEL expression over subject, resource, action and context; null = unconditional.
  condition text,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (resource_type_id, action) REFERENCES rbac_actions (resource_type_id, name) ON DELETE CASCADE
);
CREATE UNIQUE INDEX rbac_role_permissions__unique ON rbac_role_permissions (role_id, resource_type_id, action, coalesce(condition, ''));

-- Role `role_id` inherits every permission of `inherits_role_id` (transitively; a cycle is refused by the API).
CREATE TABLE rbac_role_inheritance (
  role_id uuid NOT NULL REFERENCES rbac_roles (id) ON DELETE CASCADE,
  inherits_role_id uuid NOT NULL REFERENCES rbac_roles (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL,
  PRIMARY KEY (role_id, inherits_role_id),
  CHECK (role_id <> inherits_role_id)
);

CREATE TABLE rbac_assignments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  role_id uuid NOT NULL REFERENCES rbac_roles (id) ON DELETE CASCADE,
  user_id uuid REFERENCES users (id) ON DELETE CASCADE,
  group_id uuid REFERENCES groups (id) ON DELETE CASCADE,
  -- Instances the grant is limited to, as [{"type": key, "id": resourceId}]; null = every instance.
  resources jsonb CHECK (resources IS NULL OR jsonb_typeof(resources) = 'array'),
  condition text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((user_id IS NULL) <> (group_id IS NULL))
);
CREATE INDEX rbac_assignments__environment ON rbac_assignments (environment_id, created_at, id);
CREATE INDEX rbac_assignments__role ON rbac_assignments (role_id);
CREATE INDEX rbac_assignments__user ON rbac_assignments (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX rbac_assignments__group ON rbac_assignments (group_id) WHERE group_id IS NOT NULL;
