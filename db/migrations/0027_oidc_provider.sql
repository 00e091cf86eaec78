-- Every environment is an OpenID provider (oidc-provider, one instance per environment): its clients, its signing
-- key ring, the provider's own records (sessions, grants, codes, tokens, interactions…), the settings that shape
-- tokens and sessions, the consents users gave (connected apps), the directory's view of sign-in sessions, and
-- directory passwords. A change to what a built Provider holds (clients, keys, settings, claim mappings, allowlist)
-- sends the environment id on `iam_oidc`, and every instance rebuilds that environment's Provider on next use.

CREATE FUNCTION notify_oidc() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM pg_notify('iam_oidc', OLD.environment_id::text); END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN PERFORM pg_notify('iam_oidc', NEW.environment_id::text); END IF;
  RETURN NULL;
END;
$$;

-- OIDC clients (SPEC OidcClient). `client_id` is what relying parties send; the secret is sealed with the master key
-- (AES-256-GCM, lib/crypto.ts) because the provider compares it (client_secret_basic/post) and signs with it
-- (client_secret_jwt, HS256 ID tokens); it is shown once, at register and rotate.
CREATE TABLE oidc_clients (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  client_id text NOT NULL,
  name text NOT NULL,
  description text,
  logo_uri text,
  client_uri text,
  policy_uri text,
  tos_uri text,
  redirect_uris text[] NOT NULL DEFAULT '{}',
  post_logout_redirect_uris text[] NOT NULL DEFAULT '{}',
  grant_types text[] NOT NULL DEFAULT '{authorization_code,refresh_token}',
  response_types text[] NOT NULL DEFAULT '{code}',
  scopes text[] NOT NULL DEFAULT '{openid,profile,email,offline_access}',
  token_endpoint_auth_method text NOT NULL DEFAULT 'client_secret_basic' CHECK (token_endpoint_auth_method IN
    ('none', 'client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt')),
  pkce_required boolean NOT NULL DEFAULT true,
  -- An Agent Sign-In client (SPEC): authorization_code only, PKCE enforced, no refresh token, ≤ 10 redirect URIs.
  agent_sign_in boolean NOT NULL DEFAULT false,
  id_token_signed_response_alg text NOT NULL DEFAULT 'ES256' CHECK (id_token_signed_response_alg IN ('ES256', 'RS256')),
  backchannel_logout_uri text,
  -- Public keys for private_key_jwt (RFC 7523) and DPoP-less key binding; no private members.
  jwks jsonb CHECK (jwks IS NULL OR jsonb_typeof(jwks) = 'object'),
  secret_encrypted text,
  secret_prefix text,
  -- Registered through RFC 7591 dynamic client registration rather than the management API.
  dynamically_registered boolean NOT NULL DEFAULT false,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT oidc_clients__client_id UNIQUE (client_id),
  CHECK ((token_endpoint_auth_method IN ('none', 'private_key_jwt')) = (secret_encrypted IS NULL))
);
CREATE INDEX oidc_clients__environment_created ON oidc_clients (environment_id, created_at, id);
CREATE TRIGGER oidc_clients_oidc AFTER INSERT OR DELETE OR UPDATE ON oidc_clients FOR EACH ROW EXECUTE FUNCTION notify_oidc();

-- The environment's signing key ring. `active` signs (one per alg); `retiring` keys stay in the JWKS so tokens they
-- signed keep verifying until `retires_at` (the longest token lifetime after rotation); `retired` keys are gone.
CREATE TABLE oidc_signing_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  kid text NOT NULL,
  alg text NOT NULL CHECK (alg IN ('ES256', 'RS256')),
  public_jwk jsonb NOT NULL,
  private_key_encrypted text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'retiring', 'retired')),
  retires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT oidc_signing_keys__kid UNIQUE (kid),
  CHECK ((status = 'retiring') = (retires_at IS NOT NULL))
);
CREATE UNIQUE INDEX oidc_signing_keys__one_active ON oidc_signing_keys (environment_id, alg) WHERE status = 'active';
CREATE TRIGGER oidc_signing_keys_oidc AFTER INSERT OR DELETE OR UPDATE ON oidc_signing_keys FOR EACH ROW EXECUTE FUNCTION notify_oidc();

-- The provider's records (oidc-provider adapter models: Session, Grant, AccessToken, AuthorizationCode,
-- RefreshToken, ClientCredentials, Interaction, PushedAuthorizationRequest, ReplayDetection, …). The look-up columns
-- are copied out of the payload for the adapter's finders and the management views; `expires_at` drives clean-up.
CREATE TABLE oidc_payloads (
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  model text NOT NULL,
  id text NOT NULL,
  payload jsonb NOT NULL,
  grant_id text,
  uid text,
  user_code text,
  account_id text,
  client_id text,
  expires_at timestamptz,
  consumed_at timestamptz,
  PRIMARY KEY (environment_id, model, id)
);
CREATE INDEX oidc_payloads__grant ON oidc_payloads (environment_id, grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oidc_payloads__uid ON oidc_payloads (environment_id, model, uid) WHERE uid IS NOT NULL;
CREATE INDEX oidc_payloads__user_code ON oidc_payloads (environment_id, model, user_code) WHERE user_code IS NOT NULL;
CREATE INDEX oidc_payloads__account ON oidc_payloads (environment_id, model, account_id) WHERE account_id IS NOT NULL;
CREATE INDEX oidc_payloads__expires ON oidc_payloads (expires_at) WHERE expires_at IS NOT NULL;
-- Deleting a client deletes what the provider issued to it.
CREATE INDEX oidc_payloads__client ON oidc_payloads (environment_id, client_id) WHERE client_id IS NOT NULL;

-- Per-environment provider settings. `session_config` is the SPEC's free-form session config (the keys the service
-- reads are documented in docs/oidc.md); `dynamic_registration` opens RFC 7591 registration (MCP clients).
CREATE TABLE oidc_settings (
  environment_id uuid PRIMARY KEY REFERENCES environments (id) ON DELETE CASCADE,
  session_config jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(session_config) = 'object'),
  dynamic_registration boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER oidc_settings_oidc AFTER INSERT OR DELETE OR UPDATE ON oidc_settings FOR EACH ROW EXECUTE FUNCTION notify_oidc();

-- JWT claim mappings (SPEC JwtClaimMapping): extra claims in ID and access tokens.
CREATE TABLE jwt_claim_mappings (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  claim_name text NOT NULL,
  -- user_field: a field of the directory user (metadata_key names it); attribute: a key of the user's SCIM/custom
  -- attributes (metadata_key); static: static_value.
  source text NOT NULL CHECK (source IN ('user_field', 'attribute', 'static')),
  metadata_key text,
  static_value text,
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT jwt_claim_mappings__environment_claim UNIQUE (environment_id, claim_name)
);
CREATE TRIGGER jwt_claim_mappings_oidc AFTER INSERT OR DELETE OR UPDATE ON jwt_claim_mappings FOR EACH ROW EXECUTE FUNCTION notify_oidc();

-- The environment's client allowlist: when it has entries, only those clients may sign the environment's users in.
CREATE TABLE oidc_client_allowlist (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  client_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT oidc_client_allowlist__environment_client UNIQUE (environment_id, client_id)
);
CREATE TRIGGER oidc_client_allowlist_oidc AFTER INSERT OR DELETE OR UPDATE ON oidc_client_allowlist FOR EACH ROW EXECUTE FUNCTION notify_oidc();

-- Connected apps (SPEC OidcClientGrant): one row per user and client, written at consent; `grant_id` is the
-- provider's Grant, whose tokens a revocation deletes.
CREATE TABLE oidc_client_grants (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  client_id text NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  grant_id text,
  scopes text[] NOT NULL DEFAULT '{}',
  consented_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT oidc_client_grants__environment_client_user UNIQUE (environment_id, client_id, user_id)
);
CREATE INDEX oidc_client_grants__environment_user ON oidc_client_grants (environment_id, user_id);
CREATE INDEX oidc_client_grants__environment_created ON oidc_client_grants (environment_id, created_at, id);

-- Sign-in sessions as the directory shows them: one row per provider Session (`session_uid`).
CREATE TABLE directory_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  session_uid text NOT NULL,
  ip text,
  user_agent text,
  -- Factors used (amr values: pwd, otp, hwk…), in order.
  factors text[] NOT NULL DEFAULT '{}',
  -- Clients the session signed in to, for the list and for back-channel logout.
  client_ids text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  last_active_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  CONSTRAINT directory_sessions__environment_uid UNIQUE (environment_id, session_uid)
);
CREATE INDEX directory_sessions__environment_user ON directory_sessions (environment_id, user_id, created_at);
CREATE INDEX directory_sessions__expires ON directory_sessions (expires_at) WHERE expires_at IS NOT NULL;

-- Directory passwords (argon2id PHC strings), apart from `users` so a password change does not touch the access
-- model (users_model trigger) and never reaches a user response.
CREATE TABLE user_passwords (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One-time links by which a user sets a password; only the SHA-256 of the token is kept.
CREATE TABLE password_links (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash bytea NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT password_links__token_hash UNIQUE (token_hash)
);
CREATE INDEX password_links__environment_user ON password_links (environment_id, user_id);
CREATE INDEX password_links__expires ON password_links (expires_at);
