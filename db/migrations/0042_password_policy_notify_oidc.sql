-- The Provider snapshot holds the password policy's passwordAuthEnabled (the sign-in pages read it on every page),
-- so a change to password_policies sends the environment id on `iam_oidc` like the other tables the snapshot reads.
CREATE TRIGGER password_policies_oidc AFTER INSERT OR DELETE OR UPDATE ON password_policies
  FOR EACH ROW EXECUTE FUNCTION notify_oidc();
