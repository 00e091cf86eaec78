-- Credential changes notify themselves. API instances cache verified tokens and evict an entry when its
-- principal, credential or organization id arrives on the `iam_credentials` channel (delivered at commit).
-- Triggers on every table a principal is made of send those ids, so no code path can forget to, foreign-key
-- cascades included (deleting a tenant deletes the users of its environments, their tokens, seats and
-- memberships: each deleted row notifies). Updates notify only when a column that authentication reads
-- changes, never for `last_used_at` bookkeeping.

CREATE FUNCTION notify_credentials() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  column_name text;
  old_id text;
  new_id text;
BEGIN
  -- TG_ARGV: the columns holding the ids to notify (a principal, a credential, an organization).
  FOREACH column_name IN ARRAY TG_ARGV LOOP
    old_id := CASE WHEN TG_OP IN ('UPDATE', 'DELETE') THEN to_jsonb(OLD) ->> column_name END;
    new_id := CASE WHEN TG_OP IN ('UPDATE', 'INSERT') THEN to_jsonb(NEW) ->> column_name END;
    IF old_id IS NOT NULL THEN PERFORM pg_notify('iam_credentials', old_id); END IF;
    IF new_id IS NOT NULL AND new_id IS DISTINCT FROM old_id THEN PERFORM pg_notify('iam_credentials', new_id); END IF;
  END LOOP;
  RETURN NULL;
END;
$$;

CREATE TRIGGER users_credentials AFTER DELETE ON users FOR EACH ROW EXECUTE FUNCTION notify_credentials('id');
CREATE TRIGGER users_credentials_update AFTER UPDATE OF active, management_scopes, environment_id ON users FOR EACH ROW
  WHEN (OLD.active IS DISTINCT FROM NEW.active OR OLD.management_scopes IS DISTINCT FROM NEW.management_scopes
    OR OLD.environment_id IS DISTINCT FROM NEW.environment_id)
  EXECUTE FUNCTION notify_credentials('id');

CREATE TRIGGER service_accounts_credentials AFTER DELETE ON service_accounts FOR EACH ROW EXECUTE FUNCTION notify_credentials('id');
CREATE TRIGGER service_accounts_credentials_update AFTER UPDATE OF active, scopes, organization_id ON service_accounts FOR EACH ROW
  WHEN (OLD.active IS DISTINCT FROM NEW.active OR OLD.scopes IS DISTINCT FROM NEW.scopes OR OLD.organization_id IS DISTINCT FROM NEW.organization_id)
  EXECUTE FUNCTION notify_credentials('id');

CREATE TRIGGER personal_access_tokens_credentials AFTER DELETE ON personal_access_tokens FOR EACH ROW EXECUTE FUNCTION notify_credentials('id');
CREATE TRIGGER personal_access_tokens_credentials_update AFTER UPDATE OF revoked_at, expires_at, scopes, user_id ON personal_access_tokens FOR EACH ROW
  WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
    OR OLD.scopes IS DISTINCT FROM NEW.scopes OR OLD.user_id IS DISTINCT FROM NEW.user_id)
  EXECUTE FUNCTION notify_credentials('id');

CREATE TRIGGER organization_keys_credentials AFTER DELETE ON organization_keys FOR EACH ROW EXECUTE FUNCTION notify_credentials('id');
CREATE TRIGGER organization_keys_credentials_update AFTER UPDATE OF revoked_at, expires_at, scopes, all_tenants, organization_id ON organization_keys
  FOR EACH ROW
  WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at OR OLD.scopes IS DISTINCT FROM NEW.scopes
    OR OLD.all_tenants IS DISTINCT FROM NEW.all_tenants OR OLD.organization_id IS DISTINCT FROM NEW.organization_id)
  EXECUTE FUNCTION notify_credentials('id');
CREATE TRIGGER organization_key_tenants_credentials AFTER INSERT OR UPDATE OR DELETE ON organization_key_tenants FOR EACH ROW
  EXECUTE FUNCTION notify_credentials('key_id');

-- A user's organizations come from its active memberships, its seats from tenant_seats.
CREATE TRIGGER organization_members_credentials AFTER INSERT OR DELETE ON organization_members FOR EACH ROW
  EXECUTE FUNCTION notify_credentials('user_id');
CREATE TRIGGER organization_members_credentials_update AFTER UPDATE OF active, organization_id, user_id ON organization_members FOR EACH ROW
  WHEN (OLD.active IS DISTINCT FROM NEW.active OR OLD.organization_id IS DISTINCT FROM NEW.organization_id OR OLD.user_id IS DISTINCT FROM NEW.user_id)
  EXECUTE FUNCTION notify_credentials('user_id');

CREATE TRIGGER tenant_seats_credentials AFTER DELETE ON tenant_seats FOR EACH ROW EXECUTE FUNCTION notify_credentials('user_id');
CREATE TRIGGER tenant_seats_credentials_update AFTER UPDATE OF user_id, active, scopes, valid_from, valid_until, tenant_id ON tenant_seats FOR EACH ROW
  WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id OR OLD.active IS DISTINCT FROM NEW.active OR OLD.scopes IS DISTINCT FROM NEW.scopes
    OR OLD.valid_from IS DISTINCT FROM NEW.valid_from OR OLD.valid_until IS DISTINCT FROM NEW.valid_until OR OLD.tenant_id IS DISTINCT FROM NEW.tenant_id)
  EXECUTE FUNCTION notify_credentials('user_id');

-- Every cached principal of a deleted organization (its service accounts, keys and members) is evicted by it.
CREATE TRIGGER organizations_credentials AFTER DELETE ON organizations FOR EACH ROW EXECUTE FUNCTION notify_credentials('id');

-- Access tokens of a service account carry the generation it had when they were issued (claim `gen`).
-- Disabling the account starts a new generation, so re-enabling it does not revive the tokens issued before.
ALTER TABLE service_accounts ADD COLUMN token_generation integer NOT NULL DEFAULT 0;

CREATE FUNCTION service_accounts_next_generation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.token_generation := OLD.token_generation + 1;
  RETURN NEW;
END;
$$;
CREATE TRIGGER service_accounts_disable BEFORE UPDATE OF active ON service_accounts FOR EACH ROW
  WHEN (OLD.active AND NOT NEW.active)
  EXECUTE FUNCTION service_accounts_next_generation();
