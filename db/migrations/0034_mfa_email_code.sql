-- An emailed code as the second factor: the MFA policy's switch, and which factor a sign-in's email code is for.

-- Off by default: the second-factor pages offer "Email me a code instead" only where the policy turns it on.
ALTER TABLE mfa_settings ADD COLUMN email_code_second_factor boolean NOT NULL DEFAULT false;

-- One row per interaction still (a new code replaces the previous one, whatever it was for, at most one per 30 s);
-- `purpose` keeps a first factor's code from passing as a second factor's and back.
ALTER TABLE sign_in_email_codes
  ADD COLUMN purpose text NOT NULL DEFAULT 'first_factor' CHECK (purpose IN ('first_factor', 'second_factor'));
