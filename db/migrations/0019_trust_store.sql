-- The MCP trust store of an environment: the non-human identities (agents, MCP servers, workloads) that may act in
-- it, each with its public keys, the tools it may call and, for an MCP server, the pinned hash of the tool manifest
-- it may expose. Entries are subjects of AuthZEN decisions, so every change notifies the model cache.

CREATE TABLE trust_store_entries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('agent', 'mcp_server', 'workload')),
  -- A SPIFFE ID, an MCP server URL, a client id…: what runtime callers name the entry by.
  subject text NOT NULL,
  name text NOT NULL,
  description text,
  -- A directory user of the environment who answers for the entry.
  owner_id uuid REFERENCES users (id) ON DELETE SET NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified', 'suspended', 'revoked')),
  -- The tools the entry may call; null (absent) allows none.
  allowed_tools text[],
  -- sha256:<hex> of the RFC 8785 canonical JSON of the server's tools/list result; set = the manifest is pinned.
  tool_manifest_hash text CHECK (tool_manifest_hash ~ '^sha256:[0-9a-f]{64}$'),
  manifest_pinned_at timestamptz,
  metadata jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
  verified_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT trust_store_entries__environment_subject UNIQUE (environment_id, subject),
  CHECK ((status = 'revoked') = (revoked_at IS NOT NULL)),
  CHECK ((tool_manifest_hash IS NULL) = (manifest_pinned_at IS NULL))
);
CREATE INDEX trust_store_entries__environment_created ON trust_store_entries (environment_id, created_at, id);

-- Public keys only (a JWK without private members). `retiring` keys still verify until `retires_at`.
CREATE TABLE trust_store_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  entry_id uuid NOT NULL REFERENCES trust_store_entries (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL,
  kid text NOT NULL,
  jwk jsonb NOT NULL CHECK (jsonb_typeof(jwk) = 'object'),
  alg text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'retiring', 'retired', 'revoked')),
  retires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT trust_store_keys__entry_kid UNIQUE (entry_id, kid),
  CHECK ((status = 'retiring') = (retires_at IS NOT NULL)),
  CHECK ((status = 'revoked') = (revoked_at IS NOT NULL))
);
CREATE INDEX trust_store_keys__environment ON trust_store_keys (environment_id);

CREATE TRIGGER trust_store_entries_model AFTER INSERT OR DELETE OR UPDATE ON trust_store_entries FOR EACH ROW EXECUTE FUNCTION notify_model();
CREATE TRIGGER trust_store_keys_model AFTER INSERT OR DELETE OR UPDATE ON trust_store_keys FOR EACH ROW EXECUTE FUNCTION notify_model();
