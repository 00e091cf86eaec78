-- Operators (users holding management scopes) are protected principals: writes to them are checked, and
-- provisioning tokens never see them. This index finds an environment's operators without scanning its users.
CREATE INDEX users__operators ON users (environment_id) WHERE management_scopes <> '{}';

-- A service account that creates an organization keeps reach over it (as a WorkOS or Auth0 management key manages
-- the organizations it creates): its principal's organizations are its own plus those it created. A user creating one
-- becomes its owner instead (organization_members). A row's insert or delete evicts the cached principal.
CREATE TABLE organization_creators (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  service_account_id uuid NOT NULL REFERENCES service_accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, service_account_id)
);
CREATE INDEX organization_creators__service_account_id ON organization_creators (service_account_id);
CREATE TRIGGER organization_creators_credentials AFTER INSERT OR DELETE ON organization_creators FOR EACH ROW
  EXECUTE FUNCTION notify_credentials('service_account_id');
