-- Just-in-time elevated access. A policy says who may ask for what (an RBAC role, optionally limited to instances,
-- or membership of a directory group), for how long, and who approves; a request asks under a policy and is
-- decided by approvers (or approved by the policy's CEL condition); an approved request makes a grant, which its
-- grantee activates within a window and which ends at its expiry or when revoked. Active grants are part of the
-- access model (AuthZEN decisions), so every change of a grant notifies the model cache.

CREATE TABLE elevate_policies (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text,
  -- Exactly one target: a role (optionally limited to [{"type", "id"}] instances) or a group.
  role_id uuid REFERENCES rbac_roles (id) ON DELETE CASCADE,
  resources jsonb CHECK (resources IS NULL OR jsonb_typeof(resources) = 'array'),
  group_id uuid REFERENCES groups (id) ON DELETE CASCADE,
  eligible_user_ids uuid[] NOT NULL DEFAULT '{}',
  eligible_group_ids uuid[] NOT NULL DEFAULT '{}',
  approver_user_ids uuid[] NOT NULL DEFAULT '{}',
  approver_group_ids uuid[] NOT NULL DEFAULT '{}',
  approvals_required integer NOT NULL DEFAULT 1 CHECK (approvals_required >= 1),
  -- CEL over `requester` and `request`; true approves a request without approvers.
  auto_approve text,
  max_duration_seconds integer NOT NULL CHECK (max_duration_seconds > 0),
  default_duration_seconds integer NOT NULL CHECK (default_duration_seconds > 0 AND default_duration_seconds <= max_duration_seconds),
  require_justification boolean NOT NULL DEFAULT false,
  ticket_pattern text,
  request_ttl_seconds integer NOT NULL CHECK (request_ttl_seconds > 0),
  activation_window_seconds integer NOT NULL CHECK (activation_window_seconds > 0),
  reapprove_extensions boolean NOT NULL DEFAULT false,
  notification_channel_ids uuid[] NOT NULL DEFAULT '{}',
  escalation_channel_ids uuid[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT elevate_policies__environment_name UNIQUE (environment_id, name),
  CHECK ((role_id IS NULL) <> (group_id IS NULL)),
  CHECK (group_id IS NULL OR resources IS NULL)
);
CREATE INDEX elevate_policies__environment_created ON elevate_policies (environment_id, created_at, id);

CREATE TABLE elevate_requests (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  policy_id uuid NOT NULL REFERENCES elevate_policies (id) ON DELETE CASCADE,
  requester_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  duration_seconds integer NOT NULL CHECK (duration_seconds > 0),
  justification text,
  ticket_id text,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'approved', 'denied', 'cancelled', 'expired')),
  -- Set for a request to extend an active grant (a policy with reapproveExtensions).
  extends_grant_id uuid,
  auto_approved boolean NOT NULL DEFAULT false,
  expires_at timestamptz NOT NULL,
  decided_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((state = 'pending') = (decided_at IS NULL))
);
CREATE INDEX elevate_requests__environment_created ON elevate_requests (environment_id, created_at, id);
CREATE INDEX elevate_requests__pending ON elevate_requests (created_at) WHERE state = 'pending';

CREATE TABLE elevate_decisions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  request_id uuid NOT NULL REFERENCES elevate_requests (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL,
  approver_id uuid REFERENCES users (id) ON DELETE SET NULL,
  decision text NOT NULL CHECK (decision IN ('approve', 'deny')),
  comment text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT elevate_decisions__request_approver UNIQUE (request_id, approver_id)
);

CREATE TABLE elevate_grants (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  policy_id uuid NOT NULL REFERENCES elevate_policies (id) ON DELETE CASCADE,
  request_id uuid NOT NULL REFERENCES elevate_requests (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role_id uuid REFERENCES rbac_roles (id) ON DELETE CASCADE,
  resources jsonb CHECK (resources IS NULL OR jsonb_typeof(resources) = 'array'),
  group_id uuid REFERENCES groups (id) ON DELETE CASCADE,
  state text NOT NULL DEFAULT 'approved' CHECK (state IN ('approved', 'active', 'expired', 'revoked')),
  duration_seconds integer NOT NULL CHECK (duration_seconds > 0),
  activation_deadline timestamptz NOT NULL,
  activated_at timestamptz,
  expires_at timestamptz,
  revoked_at timestamptz,
  revoke_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT elevate_grants__request UNIQUE (request_id),
  CHECK ((role_id IS NULL) <> (group_id IS NULL)),
  CHECK ((activated_at IS NULL) = (expires_at IS NULL)),
  CHECK ((state = 'revoked') = (revoked_at IS NOT NULL))
);
CREATE INDEX elevate_grants__environment_created ON elevate_grants (environment_id, created_at, id);
-- What the model loads: the grants that may be in force.
CREATE INDEX elevate_grants__active ON elevate_grants (environment_id) WHERE state = 'active';
CREATE INDEX elevate_grants__open ON elevate_grants (created_at) WHERE state IN ('approved', 'active');

CREATE TRIGGER elevate_grants_model AFTER INSERT OR DELETE OR UPDATE ON elevate_grants FOR EACH ROW EXECUTE FUNCTION notify_model();
