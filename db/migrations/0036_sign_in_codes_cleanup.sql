-- The oidc-cleanup process also deletes sign-in codes: sign-in email codes (0033, already indexed on expires_at) and
-- superseded sign-up codes (0028), found by expiry. A sign-up code is looked up by expiry, then by its user for a
-- newer one (sign_up_codes__user).
CREATE INDEX sign_up_codes__expires ON sign_up_codes (expires_at);
