-- Projects and their environments: each environment gets a public client id (what SDKs identify it by), the
-- browser redirect URIs used after sign-in, and an ordered list of sign-in connections (social providers,
-- enterprise SSO, email and password). Provider secrets are encrypted under MASTER_KEY and never returned.

-- A volatile default is evaluated per row, so environments that exist already get distinct client ids.
ALTER TABLE environments
  ADD COLUMN client_id text NOT NULL DEFAULT ('env_' || replace(gen_random_uuid()::text, '-', '')),
  ADD COLUMN success_redirect_uri text,
  ADD COLUMN error_redirect_uri text;
ALTER TABLE environments ADD CONSTRAINT environments__client_id UNIQUE (client_id);
CREATE INDEX environments__tenant_id ON environments (tenant_id);

CREATE TABLE environment_connections (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  provider_id text NOT NULL,
  name text NOT NULL,
  -- The provider's settings without its secrets (clientId, issuer, metadataUrl…).
  config jsonb NOT NULL DEFAULT '{}',
  -- The secret fields (clientSecret…) as one JSON object sealed with db/crypto.ts encrypt(); null when the provider has none.
  secrets_encrypted text,
  active boolean NOT NULL DEFAULT true,
  -- Order in which sign-in offers the connections; gaps are allowed (a deleted connection leaves one).
  rank integer NOT NULL CHECK (rank >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT environment_connections__environment_id_rank UNIQUE (environment_id, rank)
);
