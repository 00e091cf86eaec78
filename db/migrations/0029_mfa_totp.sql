-- Second factors of directory users (TOTP and recovery codes) and each environment's MFA policy. The TOTP secret is
-- sealed with the master key (AES-256-GCM, lib/crypto.ts) because verifying a code needs it; recovery codes are
-- stored as the SHA-256 of the normalised code only (80 random bits each, shown once).

-- A user's TOTP factor: unconfirmed while the user enrols (a new enrolment replaces it), confirmed once a code from
-- the authenticator was verified; at most one confirmed factor per user. `last_used_step` is the RFC 6238 time step
-- of the last code accepted: a code of that step or an earlier one is a replay (updated with
-- `WHERE last_used_step < $step`, so two requests with the same code cannot both succeed).
CREATE TABLE user_totp_factors (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  secret_encrypted text NOT NULL,
  confirmed_at timestamptz,
  last_used_step bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE UNIQUE INDEX user_totp_factors__user_confirmed ON user_totp_factors (user_id) WHERE confirmed_at IS NOT NULL;
CREATE UNIQUE INDEX user_totp_factors__user_pending ON user_totp_factors (user_id) WHERE confirmed_at IS NULL;
CREATE INDEX user_totp_factors__environment ON user_totp_factors (environment_id);

CREATE TABLE user_recovery_codes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  code_hash bytea NOT NULL CHECK (length(code_hash) = 32),
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT user_recovery_codes__user_code UNIQUE (user_id, code_hash)
);
CREATE INDEX user_recovery_codes__environment ON user_recovery_codes (environment_id);

-- An environment's MFA policy; no row is mode `off`. `required_role_keys` names RBAC roles (rbac_roles.key) whose
-- holders must use a second factor when the mode is `optional`; `remember_device_seconds` null = devices are never
-- remembered.
CREATE TABLE mfa_settings (
  environment_id uuid PRIMARY KEY REFERENCES environments (id) ON DELETE CASCADE,
  mode text NOT NULL DEFAULT 'off' CHECK (mode IN ('off', 'optional', 'required')),
  required_role_keys text[] NOT NULL DEFAULT '{}',
  remember_device_seconds integer CHECK (remember_device_seconds IS NULL OR remember_device_seconds > 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);
