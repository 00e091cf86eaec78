-- The devices a user signed in from (issue 19, device-risk policy): one row per environment, user and device cookie
-- id, written after a successful sign-in (after its step-up, if one was asked) while the environment's device-risk
-- policy is on. `fingerprint` is a hash of the browser family, the OS and the preferred language: a cookie replayed
-- from another kind of browser does not count as this device. The location is that of the device's last sign-in
-- geolocated (impossible travel on): the user's newest `located_at` is where and when they last were.
-- Rows not seen for 400 days (the cookie's lifetime) are dropped by the next sign-in of their user.
CREATE TABLE known_devices (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  device_id text NOT NULL CHECK (length(device_id) <= 64),
  fingerprint text NOT NULL CHECK (length(fingerprint) <= 64),
  user_agent text CHECK (length(user_agent) <= 512),
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  last_ip text,
  country text,
  latitude double precision,
  longitude double precision,
  radius_km integer,
  located_at timestamptz,
  UNIQUE (environment_id, user_id, device_id)
);
CREATE INDEX known_devices__user_located ON known_devices (environment_id, user_id, located_at DESC) WHERE located_at IS NOT NULL;
CREATE INDEX known_devices__user ON known_devices (user_id);
