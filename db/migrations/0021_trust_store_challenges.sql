-- Proof-of-possession challenges of trust-store entries: a nonce the entry signs into a JWT with one of its keys.
-- Only the nonce's SHA-256 is kept; a nonce is good once (`used_at`) and until `expires_at`.
CREATE TABLE trust_store_challenges (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  entry_id uuid NOT NULL REFERENCES trust_store_entries (id) ON DELETE CASCADE,
  nonce_hash bytea NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX trust_store_challenges__expires ON trust_store_challenges (expires_at);
