-- Rate limits per credential: an environment API secret or a provisioning token may set its own requests a minute
-- (null: the default of its kind, RATE_LIMIT_API_SECRET_MAX or RATE_LIMIT_PROVISIONING_TOKEN_MAX). Authentication
-- reads it and caches it with the credential, so a change notifies `iam_credentials` like the other columns it reads.
ALTER TABLE api_secrets ADD COLUMN rate_limit_per_minute integer CONSTRAINT api_secrets__rate_limit_positive CHECK (rate_limit_per_minute > 0);
ALTER TABLE provisioning_tokens ADD COLUMN rate_limit_per_minute integer
  CONSTRAINT provisioning_tokens__rate_limit_positive CHECK (rate_limit_per_minute > 0);

DROP TRIGGER api_secrets_credentials_update ON api_secrets;
CREATE TRIGGER api_secrets_credentials_update
  AFTER UPDATE OF secret_hash, previous_secret_hash, previous_expires_at, expires_at, revoked_at, purposes, rate_limit_per_minute
  ON api_secrets FOR EACH ROW
  WHEN (OLD.secret_hash IS DISTINCT FROM NEW.secret_hash OR OLD.previous_secret_hash IS DISTINCT FROM NEW.previous_secret_hash
    OR OLD.previous_expires_at IS DISTINCT FROM NEW.previous_expires_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
    OR OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.purposes IS DISTINCT FROM NEW.purposes
    OR OLD.rate_limit_per_minute IS DISTINCT FROM NEW.rate_limit_per_minute)
  EXECUTE FUNCTION notify_credentials('id');

DROP TRIGGER provisioning_tokens_credentials_update ON provisioning_tokens;
CREATE TRIGGER provisioning_tokens_credentials_update
  AFTER UPDATE OF token_hash, previous_token_hash, previous_expires_at, expires_at, revoked_at, rate_limit_per_minute
  ON provisioning_tokens FOR EACH ROW
  WHEN (OLD.token_hash IS DISTINCT FROM NEW.token_hash OR OLD.previous_token_hash IS DISTINCT FROM NEW.previous_token_hash
    OR OLD.previous_expires_at IS DISTINCT FROM NEW.previous_expires_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
    OR OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.rate_limit_per_minute IS DISTINCT FROM NEW.rate_limit_per_minute)
  EXECUTE FUNCTION notify_credentials('id');
