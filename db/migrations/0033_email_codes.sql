-- Email one-time codes and magic links as a sign-in factor: the environment's switch, and the code of each sign-in
-- (interaction) that asked for one.

-- Off by default: an environment offers "Email me a code" on the factors page only when it turns this on. Saved
-- through sign_in_settings, so the iam_oidc NOTIFY of its trigger reaches every instance's Provider snapshot.
ALTER TABLE sign_in_settings ADD COLUMN email_code_enabled boolean NOT NULL DEFAULT false;

-- One row per interaction (a new code replaces the previous one): the SHA-256 of `code:id` and of the link's token,
-- never themselves; 10 minutes, 5 attempts, single use (`used_at`). `user_id` is null when the identifier named no
-- user that can receive a code: the row exists anyway (no message is sent), so the pages, the resend limit and the
-- attempts behave the same for every identifier. `sent_at` is the last issue (resend: at most one per 30 s).
CREATE TABLE sign_in_email_codes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  interaction_uid text NOT NULL CHECK (char_length(interaction_uid) <= 128),
  user_id uuid REFERENCES users (id) ON DELETE CASCADE,
  login text NOT NULL CHECK (char_length(login) <= 256),
  code_hash bytea NOT NULL CHECK (length(code_hash) = 32),
  token_hash bytea NOT NULL CHECK (length(token_hash) = 32),
  attempts integer NOT NULL DEFAULT 0,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  sent_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT sign_in_email_codes__interaction UNIQUE (environment_id, interaction_uid)
);
CREATE INDEX sign_in_email_codes__user ON sign_in_email_codes (user_id);
CREATE INDEX sign_in_email_codes__expires ON sign_in_email_codes (expires_at);
