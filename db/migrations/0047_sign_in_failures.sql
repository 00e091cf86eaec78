-- The brute-force policy's counters (issue 19): failed passwords per environment and key, where the key is the
-- lower-cased identifier typed (known users or not, so a lockout reveals nothing) or the client IP address. One row
-- per key, written by one INSERT … ON CONFLICT per failure, so every instance counts into the same row. A row lives
-- until `expires_at`: the end of its counting window (first failure + lockoutMinutes) or of its lockout, whichever is
-- later; a failure after that starts a new window, and the oidc-cleanup process deletes rows expired over a day.
CREATE TABLE sign_in_failures (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('identifier', 'ip')),
  key text NOT NULL CHECK (length(key) BETWEEN 1 AND 256),
  failures integer NOT NULL CHECK (failures > 0),
  window_started_at timestamptz NOT NULL DEFAULT now(),
  last_failure_at timestamptz NOT NULL DEFAULT now(),
  -- The progressive delay: no attempt of this key before then.
  delay_until timestamptz,
  locked_until timestamptz,
  -- The user the identifier named when it was locked (null for an IP or an unknown identifier).
  user_id uuid REFERENCES users (id) ON DELETE SET NULL,
  expires_at timestamptz NOT NULL,
  UNIQUE (environment_id, kind, key)
);

CREATE INDEX sign_in_failures_locked ON sign_in_failures (environment_id, locked_until) WHERE locked_until IS NOT NULL;
CREATE INDEX sign_in_failures_expires ON sign_in_failures (expires_at);
