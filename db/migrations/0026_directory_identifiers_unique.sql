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

CREATE FUNCTION directory_identifier_taken(constraint_name text, environment_id uuid, column_name text, value text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'duplicate key value violates unique constraint "%"', constraint_name
    USING ERRCODE = 'unique_violation', CONSTRAINT = constraint_name,
      DETAIL = format('Key (environment_id, %s)=(%s, %s) already exists.', column_name, environment_id, value);
END $$;

CREATE FUNCTION users_identifiers_unique() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('directory_identifiers'), hashtext('users:' || NEW.environment_id::text));
  IF NEW.external_id IS NOT NULL AND EXISTS (
    SELECT 1 FROM users u WHERE u.environment_id = NEW.environment_id AND u.id <> NEW.id
      AND (lower(u.user_name) = lower(NEW.external_id) OR u.id = directory_id_of(NEW.external_id))) THEN
    PERFORM directory_identifier_taken('users__environment_identifier_external_id', NEW.environment_id, 'external_id', NEW.external_id);
  END IF;
  IF EXISTS (
    SELECT 1 FROM users u WHERE u.environment_id = NEW.environment_id AND u.id <> NEW.id
      AND (lower(u.external_id) = lower(NEW.user_name) OR u.id = directory_id_of(lower(NEW.user_name)))) THEN
    PERFORM directory_identifier_taken('users__environment_identifier_user_name', NEW.environment_id, 'user_name', NEW.user_name);
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER users_identifiers_unique BEFORE INSERT ON users FOR EACH ROW EXECUTE FUNCTION users_identifiers_unique();
CREATE TRIGGER users_identifiers_unique_update BEFORE UPDATE OF external_id, user_name ON users FOR EACH ROW
  WHEN (OLD.external_id IS DISTINCT FROM NEW.external_id OR OLD.user_name IS DISTINCT FROM NEW.user_name)
  EXECUTE FUNCTION users_identifiers_unique();

CREATE FUNCTION groups_identifiers_unique() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('directory_identifiers'), hashtext('groups:' || NEW.environment_id::text));
  IF NEW.external_id IS NOT NULL AND EXISTS (
    SELECT 1 FROM groups g WHERE g.environment_id = NEW.environment_id AND g.id <> NEW.id
      AND (lower(g.name) = lower(NEW.external_id) OR g.id = directory_id_of(NEW.external_id))) THEN
    PERFORM directory_identifier_taken('groups__environment_identifier_external_id', NEW.environment_id, 'external_id', NEW.external_id);
  END IF;
  IF EXISTS (
    SELECT 1 FROM groups g WHERE g.environment_id = NEW.environment_id AND g.id <> NEW.id
      AND (lower(g.external_id) = lower(NEW.name) OR g.id = directory_id_of(lower(NEW.name)))) THEN
    PERFORM directory_identifier_taken('groups__environment_identifier_name', NEW.environment_id, 'name', NEW.name);
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER groups_identifiers_unique BEFORE INSERT ON groups FOR EACH ROW EXECUTE FUNCTION groups_identifiers_unique();
CREATE TRIGGER groups_identifiers_unique_update BEFORE UPDATE OF external_id, name ON groups FOR EACH ROW
  WHEN (OLD.external_id IS DISTINCT FROM NEW.external_id OR OLD.name IS DISTINCT FROM NEW.name)
  EXECUTE FUNCTION groups_identifiers_unique();
