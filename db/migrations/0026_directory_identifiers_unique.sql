-- AuthZEN `any` (the new default): a request's subject id is matched against a user's id, externalId (exactly) and
-- userName (ignoring case), a group's id, externalId and name. That is unambiguous only if no directory subject's
-- externalId equals another's userName (name) or id in the same environment: the triggers below refuse such a write
-- with a unique violation naming its constraint (api/families/directory/conflicts.ts turns it into a 409). A
-- per-environment advisory lock makes two concurrent writes check one after the other (each statement of the
-- function sees what the other committed), so both cannot pass. Data saved before is left as is: a key two subjects
-- share names neither (lib/authz/subjects.ts).
ALTER TABLE authzen_settings DROP CONSTRAINT authzen_settings_subject_identifier_check;
ALTER TABLE authzen_settings ADD CONSTRAINT authzen_settings_subject_identifier_check
  CHECK (subject_identifier IN ('any', 'id', 'externalId', 'userName', 'email'));

-- A userName (name) is compared with the others' externalIds ignoring case.
CREATE INDEX users__environment_lower_external_id ON users (environment_id, lower(external_id)) WHERE external_id IS NOT NULL;
CREATE INDEX groups__environment_lower_external_id ON groups (environment_id, lower(external_id)) WHERE external_id IS NOT NULL;

-- `value` as a uuid when it is one as the service writes ids (lower case), else null: equal to no id.
CREATE FUNCTION directory_id_of(value text) RETURNS uuid LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN value ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN value::uuid END
$$;

-- One trigger function for both tables: TG_ARGV[0] is the column of the name (users.user_name, groups.name). A
-- conflict raises unique_violation with the constraint `<table>__environment_identifier_<column>` and pg's detail.
CREATE FUNCTION directory_identifiers_unique() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  name_column text := TG_ARGV[0];
  name_value text;
  taken text;
BEGIN
  -- One lock per environment for users and groups alike, so no two writers take the two in opposite orders.
  PERFORM pg_advisory_xact_lock(hashtext('directory_identifiers'), hashtext(NEW.environment_id::text));
  EXECUTE format('SELECT ($1).%I', name_column) INTO name_value USING NEW;
  IF NEW.external_id IS NOT NULL THEN
    EXECUTE format('SELECT ''external_id'' FROM %I s WHERE s.environment_id = $1 AND s.id <> $2
      AND (lower(s.%I) = lower($3) OR s.id = directory_id_of($3)) LIMIT 1', TG_TABLE_NAME, name_column)
      INTO taken USING NEW.environment_id, NEW.id, NEW.external_id;
  END IF;
  IF taken IS NULL THEN
    EXECUTE format('SELECT %L FROM %I s WHERE s.environment_id = $1 AND s.id <> $2
      AND (lower(s.external_id) = lower($3) OR s.id = directory_id_of(lower($3))) LIMIT 1', name_column, TG_TABLE_NAME)
      INTO taken USING NEW.environment_id, NEW.id, name_value;
  END IF;
  IF taken IS NOT NULL THEN
    RAISE EXCEPTION 'duplicate key value violates unique constraint "%"', format('%s__environment_identifier_%s', TG_TABLE_NAME, taken)
      USING ERRCODE = 'unique_violation', CONSTRAINT = format('%s__environment_identifier_%s', TG_TABLE_NAME, taken),
        DETAIL = format('Key (environment_id, %s)=(%s, %s) already exists.', taken, NEW.environment_id,
          CASE taken WHEN 'external_id' THEN NEW.external_id ELSE name_value END);
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER users_identifiers_unique BEFORE INSERT ON users FOR EACH ROW EXECUTE FUNCTION directory_identifiers_unique('user_name');
CREATE TRIGGER users_identifiers_unique_update BEFORE UPDATE OF external_id, user_name ON users FOR EACH ROW
  WHEN (OLD.external_id IS DISTINCT FROM NEW.external_id OR OLD.user_name IS DISTINCT FROM NEW.user_name)
  EXECUTE FUNCTION directory_identifiers_unique('user_name');
CREATE TRIGGER groups_identifiers_unique BEFORE INSERT ON groups FOR EACH ROW EXECUTE FUNCTION directory_identifiers_unique('name');
CREATE TRIGGER groups_identifiers_unique_update BEFORE UPDATE OF external_id, name ON groups FOR EACH ROW
  WHEN (OLD.external_id IS DISTINCT FROM NEW.external_id OR OLD.name IS DISTINCT FROM NEW.name)
  EXECUTE FUNCTION directory_identifiers_unique('name');
