-- Forms of an environment (issue 19, SPEC Form and FormAttachment): a form's working copy lives in `forms`
-- (`version` is the number being edited, or the latest published when nothing is being edited); publishing freezes
-- that number's name and definition in `form_versions`, and `published_version` points at the latest frozen one. An
-- attachment puts a form at a hook point of the hosted sign-in; the pages render the attached form's published
-- version, so a draft can be edited while the published one stays live.
CREATE TABLE forms (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  name text NOT NULL,
  key text NOT NULL CHECK (key ~ '^[a-z][a-z0-9_]{0,63}$'),
  status text NOT NULL CHECK (status IN ('draft', 'published')),
  definition jsonb NOT NULL CHECK (jsonb_typeof(definition) = 'object'),
  version integer NOT NULL DEFAULT 1 CHECK (version >= 1),
  published_version integer CHECK (published_version BETWEEN 1 AND version),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT forms__environment_key UNIQUE (environment_id, key),
  -- The attachments' foreign key names the environment too, so an attachment never points across environments.
  CONSTRAINT forms__environment_id UNIQUE (environment_id, id)
);

CREATE TABLE form_versions (
  form_id uuid NOT NULL REFERENCES forms (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  version integer NOT NULL CHECK (version >= 1),
  name text NOT NULL,
  definition jsonb NOT NULL,
  published_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (form_id, version)
);

CREATE TABLE form_attachments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL,
  form_id uuid NOT NULL,
  hook_type text NOT NULL CHECK (hook_type IN ('pre_signup', 'post_signup', 'pre_signin', 'post_signin')),
  enabled boolean NOT NULL DEFAULT true,
  rank integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (environment_id, form_id) REFERENCES forms (environment_id, id) ON DELETE CASCADE,
  CONSTRAINT form_attachments__form_hook UNIQUE (form_id, hook_type)
);
CREATE INDEX form_attachments__environment_hook ON form_attachments (environment_id, hook_type, rank);

-- The Provider snapshot holds the published forms attached to sign-up (db/forms/snapshot.ts): an attachment's change,
-- and a form's publication, new key or deletion, send the environment id on `iam_oidc`. Saving a draft does not rebuild it.
CREATE TRIGGER form_attachments_oidc AFTER INSERT OR DELETE OR UPDATE ON form_attachments
  FOR EACH ROW EXECUTE FUNCTION notify_oidc();
CREATE TRIGGER forms_published_oidc AFTER UPDATE ON forms
  FOR EACH ROW WHEN (OLD.published_version IS DISTINCT FROM NEW.published_version OR OLD.key <> NEW.key) EXECUTE FUNCTION notify_oidc();
CREATE TRIGGER forms_deleted_oidc AFTER DELETE ON forms FOR EACH ROW EXECUTE FUNCTION notify_oidc();
