-- MCP runtime observations, the threats detected from them (or recorded by hand) with their triage notes, and
-- each environment's threat alerting settings.

-- What MCP clients, servers and agents report: one row per client-supplied event id of an environment, so a
-- batch sent again is accepted without storing anything twice.
CREATE TABLE mcp_observations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  client_id text NOT NULL CHECK (length(client_id) BETWEEN 1 AND 128),
  type text NOT NULL CHECK (type IN ('tool.invoked', 'manifest.observed', 'auth.failed')),
  subject text NOT NULL,
  tool text,
  outcome text CHECK (outcome IN ('allowed', 'denied', 'error')),
  manifest_hash text,
  reason text,
  attributes jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(attributes) = 'object'),
  occurred_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT mcp_observations__environment_client UNIQUE (environment_id, client_id)
);
CREATE INDEX mcp_observations__environment_received ON mcp_observations (environment_id, received_at);

CREATE TABLE threats (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  category text NOT NULL CHECK (category IN ('mcp.manifest_mismatch', 'mcp.tool_not_allowed', 'mcp.unknown_subject', 'mcp.revoked_subject', 'manual')),
  severity text NOT NULL CHECK (severity IN ('low', 'medium', 'high', 'critical')),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'investigating', 'resolved', 'dismissed')),
  subject text NOT NULL,
  summary text NOT NULL,
  evidence jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(evidence) = 'object'),
  -- category + subject (+ tool or hash): occurrences of an open threat with the same key are added to it.
  dedupe_key text NOT NULL,
  -- The client ids of the linked observations, the latest 100.
  event_ids text[] NOT NULL DEFAULT '{}',
  occurrences integer NOT NULL DEFAULT 1 CHECK (occurrences > 0),
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  assignee_id uuid REFERENCES users (id) ON DELETE SET NULL,
  resolution_reason text,
  resolved_by jsonb,
  resolved_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((status IN ('resolved', 'dismissed')) = (resolved_at IS NOT NULL))
);
-- Exactly one open (or investigating) threat per key, under any concurrency: detection upserts on it.
CREATE UNIQUE INDEX threats__open_dedupe ON threats (environment_id, dedupe_key) WHERE status IN ('open', 'investigating');
CREATE INDEX threats__environment_last_seen ON threats (environment_id, last_seen_at DESC, id);

CREATE TABLE threat_notes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  threat_id uuid NOT NULL REFERENCES threats (id) ON DELETE CASCADE,
  author jsonb NOT NULL,
  text text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX threat_notes__threat ON threat_notes (threat_id, created_at);

-- Threats at or above min_severity raise a threat.alerted event, delivered to channel_ids.
CREATE TABLE threat_alerting (
  environment_id uuid PRIMARY KEY REFERENCES environments (id) ON DELETE CASCADE,
  min_severity text NOT NULL CHECK (min_severity IN ('low', 'medium', 'high', 'critical')),
  channel_ids uuid[] NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now()
);
