-- SSO sign-ins continue on the sign-in pages: the callback (or ACS) that consumed a state records the user it
-- resolved, and the interaction's own URL (…/interaction/:uid/sso/continue, where the interaction cookie is sent)
-- takes it once (`continued_at`) to apply the second factor.
ALTER TABLE sso_states
  ADD COLUMN user_id uuid REFERENCES users (id) ON DELETE CASCADE,
  ADD COLUMN continued_at timestamptz;
CREATE INDEX sso_states__interaction ON sso_states (environment_id, interaction_uid) WHERE user_id IS NOT NULL;
