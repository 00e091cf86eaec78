-- Enterprise SSO and social sign-in through an environment's connections (OIDC, OAuth 2.0, SAML 2.0).
-- `user_identities` links a directory user to an upstream subject of one connection; `sso_states` carries one
-- upstream round trip (single use, 10 minutes); `saml_assertion_ids` refuses an assertion seen before; and
-- `sso_sp_keys` holds each environment's SAML SP encryption key pair (the private key sealed under the master key).

CREATE TABLE user_identities (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  connection_id uuid NOT NULL REFERENCES environment_connections (id) ON DELETE CASCADE,
  -- The upstream `sub` (OIDC), user id (GitHub) or NameID (SAML).
  subject text NOT NULL,
  email text,
  -- The claims or attributes of the last sign-in (what the mapping read).
  profile jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  last_sign_in_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT user_identities__connection_subject UNIQUE (connection_id, subject)
);
CREATE INDEX user_identities__user ON user_identities (environment_id, user_id);

CREATE TABLE sso_states (
  id text PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  connection_id uuid NOT NULL REFERENCES environment_connections (id) ON DELETE CASCADE,
  -- The oidc-provider interaction the sign-in finishes.
  interaction_uid text NOT NULL,
  -- The redirect URI (OIDC, OAuth 2.0) or ACS URL (SAML) the round trip was started with.
  return_url text NOT NULL,
  code_verifier text,
  nonce text,
  -- The ID of the SAML AuthnRequest (the response's InResponseTo).
  request_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL DEFAULT now() + interval '10 minutes',
  consumed_at timestamptz
);
CREATE INDEX sso_states__expires ON sso_states (expires_at);

CREATE TABLE saml_assertion_ids (
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  connection_id uuid NOT NULL REFERENCES environment_connections (id) ON DELETE CASCADE,
  assertion_id text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (connection_id, assertion_id)
);
CREATE INDEX saml_assertion_ids__expires ON saml_assertion_ids (expires_at);

CREATE TABLE sso_sp_keys (
  environment_id uuid PRIMARY KEY REFERENCES environments (id) ON DELETE CASCADE,
  private_key_encrypted text NOT NULL,
  certificate text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
