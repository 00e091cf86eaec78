-- Relationship-based authorization that speaks OpenFGA (issue 21): each environment is one OpenFGA store (its id is
-- the environment's UUID in Crockford base32, lib/fga/store-id.ts) holding authorization models, relationship
-- tuples, the change log of those tuples and the assertions of each model. A change to models or tuples sends the
-- environment id on `iam_fga` once per statement, and every instance drops its compiled models and cached tuple
-- look-ups of that environment (api/fga).

-- Models are immutable: a write adds a new one. `id` is a ULID, so the newest has the greatest id.
CREATE TABLE fga_models (
  id text PRIMARY KEY CHECK (id ~ '^[0-7][0-9A-HJKMNP-TV-Z]{25}$'),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  schema_version text NOT NULL,
  model jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX fga_models__latest ON fga_models (environment_id, id DESC);

-- One row per tuple `object_type:object_id#relation@user_type:user_id[#user_relation]`; `user_id` '*' is a
-- wildcard, `user_relation` '' a plain user. The primary key serves look-ups by object (check, expand, read); the
-- reverse index serves look-ups by user (list-objects).
CREATE TABLE fga_tuples (
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  object_type text NOT NULL,
  object_id text NOT NULL,
  relation text NOT NULL,
  user_type text NOT NULL,
  user_id text NOT NULL,
  user_relation text NOT NULL DEFAULT '',
  condition_name text,
  condition_context jsonb,
  inserted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (environment_id, object_type, object_id, relation, user_type, user_id, user_relation)
);
CREATE INDEX fga_tuples__by_user ON fga_tuples (environment_id, object_type, relation, user_type, user_id, user_relation);

-- Every write and delete of a tuple, in the transaction that made it (OpenFGA's ReadChanges). Read in
-- `(tx_id, id)` order below the commit horizon, like the event stream (db/events/events/queries.ts), so a
-- continuation token never skips a change that commits late.
CREATE TABLE fga_changes (
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  id bigint GENERATED ALWAYS AS IDENTITY,
  tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  operation text NOT NULL CHECK (operation IN ('write', 'delete')),
  object_type text NOT NULL,
  object_id text NOT NULL,
  relation text NOT NULL,
  user_type text NOT NULL,
  user_id text NOT NULL,
  user_relation text NOT NULL,
  condition_name text,
  condition_context jsonb,
  changed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (environment_id, id)
);
CREATE INDEX fga_changes__order ON fga_changes (environment_id, tx_id, id);
CREATE INDEX fga_changes__by_type ON fga_changes (environment_id, object_type, tx_id, id);

-- The assertions (expected check answers) of one model, replaced as a whole (OpenFGA's WriteAssertions).
CREATE TABLE fga_assertions (
  model_id text PRIMARY KEY REFERENCES fga_models (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  assertions jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION notify_fga() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM pg_notify('iam_fga', e::text) FROM (SELECT DISTINCT environment_id AS e FROM old_rows) o;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    PERFORM pg_notify('iam_fga', e::text) FROM (SELECT DISTINCT environment_id AS e FROM new_rows) n;
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER fga_models_inserted AFTER INSERT ON fga_models REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION notify_fga();
CREATE TRIGGER fga_models_deleted AFTER DELETE ON fga_models REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION notify_fga();
CREATE TRIGGER fga_tuples_inserted AFTER INSERT ON fga_tuples REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION notify_fga();
CREATE TRIGGER fga_tuples_updated AFTER UPDATE ON fga_tuples REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION notify_fga();
CREATE TRIGGER fga_tuples_deleted AFTER DELETE ON fga_tuples REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION notify_fga();
