-- Organization invitations: an email invited into an organization with a role, accepted with a token (or a
-- short join code) by a user whose verified email matches. Token and code are stored as SHA-256 hashes only.
-- Pending invitations expire through the `invitation-expiry:<id>` process (and read as expired once due).

CREATE TABLE organization_invitations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'admin', 'member')),
  message text,
  -- Tenants of the organization the invitation names (informational: membership reaches every tenant).
  tenant_access uuid[] NOT NULL DEFAULT '{}',
  -- Who invited: the acting principal (user or service account id), and the user when it was one.
  invited_by text,
  inviter_user_id uuid REFERENCES users (id) ON DELETE SET NULL,
  token_hash bytea NOT NULL CONSTRAINT organization_invitations__token_hash UNIQUE,
  code_hash bytea NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'revoked', 'expired')),
  -- Send-invite only: the earliest time the invitation may be accepted.
  valid_from timestamptz,
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_by uuid REFERENCES users (id) ON DELETE SET NULL,
  revoked_at timestamptz,
  expired_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX organization_invitations__organization_id ON organization_invitations (organization_id, created_at);
CREATE INDEX organization_invitations__code_hash ON organization_invitations (code_hash);
CREATE INDEX organization_invitations__pending_email ON organization_invitations (organization_id, lower(email)) WHERE status = 'pending';

CREATE INDEX organization_members__organization_id_created_at ON organization_members (organization_id, created_at);
