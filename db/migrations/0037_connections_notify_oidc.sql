-- An environment's Provider snapshot also holds its active SSO connections (the identifier page's buttons), so a
-- change to environment_connections sends the environment id on `iam_oidc` like the other tables the snapshot reads.
CREATE TRIGGER environment_connections_oidc AFTER INSERT OR DELETE OR UPDATE ON environment_connections
  FOR EACH ROW EXECUTE FUNCTION notify_oidc();
