-- The directory of an environment: users (the table exists since 0001; operators are users of the bootstrap
-- environment) and groups. userName, every email and externalId are unique per environment, userName and emails
-- case-insensitively. Emails live in `users.emails` (jsonb, the SPEC shape); `user_emails` is the index of them
-- that a trigger keeps, so uniqueness and email-prefix search are plain btree lookups.

ALTER TABLE users ADD COLUMN attributes jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(attributes) = 'object');
ALTER TABLE users DROP CONSTRAINT users__environment_id_user_name;
CREATE UNIQUE INDEX users__environment_user_name ON users (environment_id, lower(user_name));
CREATE UNIQUE INDEX users__environment_external_id ON users (environment_id, external_id) WHERE external_id IS NOT NULL;
-- Directory lists page by (created_at, id).
CREATE INDEX users__environment_created ON users (environment_id, created_at, id);

CREATE TABLE user_emails (
  environment_id uuid NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- lower-cased; the C collation lets `LIKE 'prefix%'` use the primary key.
  email text COLLATE "C" NOT NULL,
  PRIMARY KEY (environment_id, email)
);
CREATE INDEX user_emails__user ON user_emails (user_id);

CREATE FUNCTION index_user_emails() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM user_emails WHERE user_id = NEW.id;
  -- A duplicate within the environment raises unique_violation on user_emails_pkey (the API answers 409).
  INSERT INTO user_emails (environment_id, user_id, email)
    SELECT DISTINCT NEW.environment_id, NEW.id, lower(e->>'value') FROM jsonb_array_elements(NEW.emails) e WHERE e->>'value' IS NOT NULL;
  RETURN NULL;
END;
$$;
CREATE TRIGGER users_index_emails AFTER INSERT OR UPDATE OF emails, environment_id ON users FOR EACH ROW EXECUTE FUNCTION index_user_emails();
INSERT INTO user_emails (environment_id, user_id, email)
  SELECT DISTINCT u.environment_id, u.id, lower(e->>'value') FROM users u, jsonb_array_elements(u.emails) e WHERE e->>'value' IS NOT NULL
  ON CONFLICT DO NOTHING;

CREATE TABLE groups (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text,
  external_id text,
  attributes jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(attributes) = 'object'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX groups__environment_name ON groups (environment_id, lower(name));
CREATE UNIQUE INDEX groups__environment_external_id ON groups (environment_id, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX groups__environment_created ON groups (environment_id, created_at, id);

CREATE TABLE group_members (
  group_id uuid NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, user_id)
);
CREATE INDEX group_members__user ON group_members (user_id);
