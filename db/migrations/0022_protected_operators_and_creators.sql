-- Operators (users holding management scopes) are protected principals: writes to them are checked, and
-- provisioning tokens never see them. This index finds an environment's operators without scanning its users.
CREATE INDEX users__operators ON users (environment_id) WHERE management_scopes <> '{}';
