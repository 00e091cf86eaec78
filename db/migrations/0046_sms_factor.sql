-- SMS one-time codes as a second factor: the MFA policy's switch and its SMS rates (pumping protection), users'
-- verified phone numbers, the code of each sign-in that asked for one, and the texts sent (counted per hour).

-- Off by default. The rates count every code texted by the sign-in pages of the environment in the last hour, in
-- all and per number; a send above either is refused (429 page, `sms.rate_limited`, a `sign_in.sms_pumping` threat).
ALTER TABLE mfa_settings
  ADD COLUMN sms_second_factor boolean NOT NULL DEFAULT false,
  ADD COLUMN sms_per_environment_per_hour integer NOT NULL DEFAULT 300 CHECK (sms_per_environment_per_hour BETWEEN 1 AND 100000),
  ADD COLUMN sms_per_number_per_hour integer NOT NULL DEFAULT 5 CHECK (sms_per_number_per_hour BETWEEN 1 AND 100);

-- A user's verified phone number (E.164): created only once a texted code confirmed it, one per user.
CREATE TABLE user_phone_factors (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  phone_number text NOT NULL CHECK (phone_number ~ '^\+[1-9][0-9]{6,14}$'),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  CONSTRAINT user_phone_factors__user UNIQUE (user_id)
);
CREATE INDEX user_phone_factors__environment ON user_phone_factors (environment_id, user_id);

-- One row per interaction (a new code replaces the previous one, at most one per 30 s): the SHA-256 of `code:id`,
-- never the code; 10 minutes, 5 attempts, single use. `purpose` keeps an enrolment's code (to a number being added)
-- from passing as a sign-in's (to the verified number) and back.
CREATE TABLE sign_in_sms_codes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  interaction_uid text NOT NULL CHECK (char_length(interaction_uid) <= 128),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  phone_number text NOT NULL CHECK (phone_number ~ '^\+[1-9][0-9]{6,14}$'),
  purpose text NOT NULL CHECK (purpose IN ('enrolment', 'second_factor')),
  code_hash bytea NOT NULL CHECK (length(code_hash) = 32),
  attempts integer NOT NULL DEFAULT 0,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  sent_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT sign_in_sms_codes__interaction UNIQUE (environment_id, interaction_uid)
);
CREATE INDEX sign_in_sms_codes__user ON sign_in_sms_codes (user_id);
CREATE INDEX sign_in_sms_codes__expires ON sign_in_sms_codes (environment_id, expires_at);

-- Each text sent, for the hourly rates (shared by every instance): the number only as an HMAC-SHA256 under the master
-- key. Rows older than an hour are deleted by the next send of the environment.
CREATE TABLE sms_sends (
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  number_hash bytea NOT NULL CHECK (length(number_hash) = 32),
  sent_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sms_sends__environment ON sms_sends (environment_id, sent_at);
CREATE INDEX sms_sends__number ON sms_sends (environment_id, number_hash, sent_at);

-- A refused send over a rate is a `sign_in.sms_pumping` threat: the category is allowed since migration 0043.
