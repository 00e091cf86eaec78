-- "Remember this device" moves from the MFA policy to the session config, which holds every lifetime of a sign-in:
-- each environment's `mfa_settings.remember_device_seconds` becomes the `rememberDeviceSeconds` key of its
-- `oidc_settings.session_config` (the row created when missing; a stored key of that name, which nothing read, is
-- replaced). The API only ever took 60 s … 400 days; a value written around it is brought into that range, so the
-- session config stays valid. The notify_oidc trigger (0027) rebuilds the environments' Providers.
INSERT INTO oidc_settings (environment_id, session_config)
SELECT environment_id, jsonb_build_object('rememberDeviceSeconds', LEAST(GREATEST(remember_device_seconds, 60), 34560000))
FROM mfa_settings
WHERE remember_device_seconds IS NOT NULL
ON CONFLICT (environment_id) DO UPDATE
  SET session_config = oidc_settings.session_config || EXCLUDED.session_config, updated_at = now();

ALTER TABLE mfa_settings DROP COLUMN remember_device_seconds;
