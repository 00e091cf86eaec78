-- Vanity domains (issue 20): an environment's own auth host (login.example.com). The row is the source of truth of
-- its process (vanity-domain:<id>): `status` moves pending_dns → issuing → active (→ renewing → active …) or to
-- failed with `failure_reason`; `removing_at` set by DELETE asks the process to revoke the certificate and delete the
-- row. The certificate chain is public (PEM); its private key is sealed under the master key.
CREATE TABLE vanity_domains (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  hostname text NOT NULL CHECK (length(hostname) <= 253),
  status text NOT NULL DEFAULT 'pending_dns' CHECK (status IN ('pending_dns', 'issuing', 'active', 'failed', 'renewing')),
  failure_reason text,
  cname_target text NOT NULL,
  txt_name text NOT NULL,
  txt_value text NOT NULL,
  -- When DNS checking (re)started: the give-up time counts from here.
  dns_checking_since timestamptz NOT NULL DEFAULT now(),
  dns_verified_at timestamptz,
  certificate_chain text,
  certificate_key_sealed text,
  certificate_not_before timestamptz,
  certificate_not_after timestamptz,
  certificate_serial text,
  certificate_fingerprint text,
  certificate_issuer text,
  certificate_issued_at timestamptz,
  renewals integer NOT NULL DEFAULT 0,
  removing_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- One environment per host, across the deployment: the TLS listener picks the certificate by host name alone.
CREATE UNIQUE INDEX vanity_domains__hostname ON vanity_domains (hostname);
CREATE INDEX vanity_domains__environment ON vanity_domains (environment_id, created_at, id);

-- HTTP-01 challenges in flight: the process writes the key authorization, any API instance answers
-- GET /.well-known/acme-challenge/<token> from here.
CREATE TABLE vanity_acme_challenges (
  token text PRIMARY KEY CHECK (length(token) <= 256),
  hostname text NOT NULL,
  key_authorization text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The deployment's ACME account key per directory (sealed), created on first use.
CREATE TABLE vanity_acme_accounts (
  directory_url text PRIMARY KEY,
  key_sealed text NOT NULL,
  -- The account's URL (its `kid`), once registered.
  account_url text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Every API instance drops its cached certificate and host of a changed row (api/vanity/store.ts).
CREATE FUNCTION vanity_domains_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('iam_vanity', OLD.hostname); END IF;
  IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.hostname IS DISTINCT FROM OLD.hostname) THEN PERFORM pg_notify('iam_vanity', NEW.hostname); END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER vanity_domains_notify AFTER INSERT OR UPDATE OR DELETE ON vanity_domains FOR EACH ROW EXECUTE FUNCTION vanity_domains_notify();
