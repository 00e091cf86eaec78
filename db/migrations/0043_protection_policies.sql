-- An environment's sign-in protection policies (issue 19): breached passwords, brute force, bot detection, rate limit,
-- device risk and the sign-up restrictions, one row per environment and policy, none until saved (the policy is off
-- then). The settings' shapes live in lib/protections/settings.ts; the Provider snapshot carries them to the sign-in
-- pages, so a change sends the environment id on `iam_oidc` like the other tables the snapshot reads.
CREATE TABLE protection_policies (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('breached_password', 'brute_force', 'bot_detection', 'rate_limit', 'device_risk', 'restrictions')),
  settings jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment_id, kind)
);

CREATE TRIGGER protection_policies_oidc AFTER INSERT OR DELETE OR UPDATE ON protection_policies
  FOR EACH ROW EXECUTE FUNCTION notify_oidc();

-- A protection that denies an attempt opens (or adds to) a threat of its own category.
ALTER TABLE threats DROP CONSTRAINT threats_category_check;
ALTER TABLE threats ADD CONSTRAINT threats_category_check CHECK (category IN ('mcp.manifest_mismatch', 'mcp.tool_not_allowed',
  'mcp.unknown_subject', 'mcp.revoked_subject', 'sign_in.brute_force', 'sign_in.bot_detection', 'sign_in.rate_limit',
  'sign_in.device_risk', 'sign_in.restrictions', 'sign_in.breached_password', 'sign_in.sms_pumping', 'manual'));
