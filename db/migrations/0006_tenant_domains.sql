-- Domains a tenant claims, proven by a DNS TXT record. A tenant lists a domain once; many tenants may
-- list the same domain, but only one may hold it verified (the partial unique index).
CREATE TABLE tenant_domains (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  domain text NOT NULL CHECK (domain = lower(domain)),
  validation_method text NOT NULL CHECK (validation_method IN ('dns_txt')),
  validation_sub_domain text NOT NULL,
  validation_token text NOT NULL,
  verified boolean NOT NULL DEFAULT false,
  validated_at timestamptz,
  -- Set when the verification process gave up; verified stays false and a manual verify may still succeed.
  verification_failed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT tenant_domains__tenant_domain UNIQUE (tenant_id, domain),
  CHECK (verified = (validated_at IS NOT NULL))
);

CREATE UNIQUE INDEX tenant_domains__verified_domain ON tenant_domains (domain) WHERE verified;
