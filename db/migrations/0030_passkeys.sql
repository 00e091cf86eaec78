-- Passkeys (WebAuthn credentials) of directory users, and the challenges of their ceremonies. The relying party is
-- the service's PUBLIC_BASE_URL (its hostname is the RP id), so a credential id is unique per environment: the same
-- authenticator may hold one credential per environment, each with its own key.

CREATE TABLE user_passkeys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- base64url, as authenticators and browsers send it (`rawId`).
  credential_id text NOT NULL CHECK (credential_id ~ '^[A-Za-z0-9_-]+$' AND char_length(credential_id) <= 1366),
  -- The COSE public key the authenticator attested; never returned by the API.
  public_key bytea NOT NULL,
  counter bigint NOT NULL DEFAULT 0 CHECK (counter >= 0),
  transports text[] NOT NULL DEFAULT '{}',
  device_type text NOT NULL CHECK (device_type IN ('singleDevice', 'multiDevice')),
  backed_up boolean NOT NULL DEFAULT false,
  aaguid uuid,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  CONSTRAINT user_passkeys__environment_credential UNIQUE (environment_id, credential_id)
);
CREATE INDEX user_passkeys__environment_user ON user_passkeys (environment_id, user_id, created_at, id);

-- One challenge per ceremony: single use (consumed by one UPDATE … WHERE consumed_at IS NULL, so a second instance or
-- a retry after a crash finds it consumed), five minutes by default. `user_id` is null for a discoverable sign-in
-- (conditional UI), where the credential names the user.
CREATE TABLE webauthn_challenges (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid REFERENCES users (id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('registration', 'authentication')),
  challenge text NOT NULL,
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (purpose = 'authentication' OR user_id IS NOT NULL)
);
CREATE INDEX webauthn_challenges__environment_expires ON webauthn_challenges (environment_id, expires_at);
CREATE INDEX webauthn_challenges__user ON webauthn_challenges (user_id) WHERE user_id IS NOT NULL;
