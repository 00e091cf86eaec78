-- Events, audit entries and AuthZEN decision logs are partitioned by month (RANGE on their timestamp, UTC months), so
-- the retention process (workflows/retention.ts) drops whole expired months instead of deleting rows. Each table gets
-- monthly partitions from its oldest row's month to two months ahead, and a DEFAULT partition so an insert never
-- fails. Rows are copied over: this works on a database that holds data.
--
-- A partitioned table's unique keys include its partition key: the primary keys become (id, <time>). Ids stay unique
-- (gen_random_uuid), and lookups by id use the leading column. `events.sequence` keeps its uniqueness as a per-partition
-- index plus one identity: values come from one sequence only.
--
-- deliveries.event_id referenced events (id); a foreign key to a partitioned table needs the partition key in the
-- referenced key. The key is dropped: events are immutable (no UPDATE, DELETE or TRUNCATE), every delivery is made from
-- an event the dispatcher just read, and an event's month is only dropped after its deliveries' retention.

-- Partitions of `parent` for every month from the one holding `from_ts` through `months_ahead` months after now.
CREATE FUNCTION partition_ensure_months(parent text, from_ts timestamptz, months_ahead integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  m timestamp := date_trunc('month', least(from_ts, now()) AT TIME ZONE 'UTC');
  last_month timestamp := date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => months_ahead);
  created integer := 0;
  name text;
BEGIN
  WHILE m <= last_month LOOP
    name := format('%s_p%s', parent, to_char(m, 'YYYYMM'));
    IF to_regclass(name) IS NULL THEN
      BEGIN
        EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', name, parent,
          (m AT TIME ZONE 'UTC')::text, ((m + interval '1 month') AT TIME ZONE 'UTC')::text);
        created := created + 1;
      EXCEPTION WHEN check_violation THEN
        -- The DEFAULT partition already holds rows of that month (nothing created it ahead): they stay there.
        RAISE WARNING 'partition % not created: % has rows of that month', name, parent || '_default';
      END;
    END IF;
    m := m + interval '1 month';
  END LOOP;
  RETURN created;
END;
$$;

-- Detaches then drops the monthly partitions of `parent` that end at or before `cutoff`; returns their names.
CREATE FUNCTION partition_drop_before(parent text, cutoff timestamptz) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  part text;
BEGIN
  FOR part IN
    SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = parent::regclass AND c.relname ~ ('^' || parent || '_p[0-9]{6}$')
      AND (to_timestamp(right(c.relname, 6), 'YYYYMM')::timestamp + interval '1 month') AT TIME ZONE 'UTC' <= cutoff
    ORDER BY c.relname
  LOOP
    EXECUTE format('ALTER TABLE %I DETACH PARTITION %I', parent, part);
    EXECUTE format('DROP TABLE %I', part);
    RETURN NEXT part;
  END LOOP;
END;
$$;

-- Events.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_id_fkey;
ALTER TABLE events RENAME TO events_unpartitioned;
CREATE TABLE events (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  sequence bigint GENERATED ALWAYS AS IDENTITY,
  tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  type text NOT NULL,
  organization_id uuid,
  tenant_id uuid,
  environment_id uuid,
  actor jsonb NOT NULL,
  subject jsonb,
  data jsonb NOT NULL DEFAULT '{}',
  occurred_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id, occurred_at)
) PARTITION BY RANGE (occurred_at);
CREATE TABLE events_default PARTITION OF events DEFAULT;
SELECT partition_ensure_months('events', coalesce((SELECT min(occurred_at) FROM events_unpartitioned), now()), 2);
INSERT INTO events OVERRIDING SYSTEM VALUE
  SELECT id, sequence, tx_id, type, organization_id, tenant_id, environment_id, actor, subject, data, occurred_at FROM events_unpartitioned;
SELECT setval(pg_get_serial_sequence('events', 'sequence'), coalesce((SELECT max(sequence) FROM events), 0) + 1, false);
DROP TABLE events_unpartitioned;
ALTER TABLE events RENAME CONSTRAINT events_pkey1 TO events_pkey;
CREATE INDEX events__sequence ON events (sequence);
CREATE INDEX events__tenant_id_sequence ON events (tenant_id, sequence);
CREATE INDEX events__tx_id_sequence ON events (tx_id, sequence);
CREATE INDEX events__tenant_id_tx_id_sequence ON events (tenant_id, tx_id, sequence);
CREATE TRIGGER events_immutable BEFORE UPDATE OR DELETE ON events FOR EACH ROW EXECUTE FUNCTION events_are_immutable();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION events_are_immutable();
CREATE TRIGGER events_notify AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION events_notify();

-- Audit log entries.
ALTER TABLE audit_logs RENAME TO audit_logs_unpartitioned;
CREATE TABLE audit_logs (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  sequence bigint GENERATED ALWAYS AS IDENTITY,
  organization_id uuid,
  tenant_id uuid,
  environment_id uuid,
  actor_type text NOT NULL,
  actor_id text,
  action text NOT NULL,
  resource_type text NOT NULL,
  resource_id text,
  ip text,
  user_agent text,
  request_id text,
  changes jsonb,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  on_behalf_of_type text,
  on_behalf_of_id text,
  PRIMARY KEY (id, occurred_at)
) PARTITION BY RANGE (occurred_at);
CREATE TABLE audit_logs_default PARTITION OF audit_logs DEFAULT;
SELECT partition_ensure_months('audit_logs', coalesce((SELECT min(occurred_at) FROM audit_logs_unpartitioned), now()), 2);
INSERT INTO audit_logs OVERRIDING SYSTEM VALUE
  SELECT id, sequence, organization_id, tenant_id, environment_id, actor_type, actor_id, action, resource_type, resource_id, ip,
    user_agent, request_id, changes, occurred_at, on_behalf_of_type, on_behalf_of_id FROM audit_logs_unpartitioned;
SELECT setval(pg_get_serial_sequence('audit_logs', 'sequence'), coalesce((SELECT max(sequence) FROM audit_logs), 0) + 1, false);
DROP TABLE audit_logs_unpartitioned;
ALTER TABLE audit_logs RENAME CONSTRAINT audit_logs_pkey1 TO audit_logs_pkey;
CREATE INDEX audit_logs__tenant_id_sequence ON audit_logs (tenant_id, sequence);
CREATE INDEX audit_logs__organization_id_sequence ON audit_logs (organization_id, sequence);

-- AuthZEN decision logs.
ALTER TABLE authzen_decisions RENAME TO authzen_decisions_unpartitioned;
ALTER TABLE authzen_decisions_unpartitioned RENAME CONSTRAINT authzen_decisions_environment_id_fkey TO authzen_decisions_unpartitioned_environment_id_fkey;
CREATE TABLE authzen_decisions (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  decided_at timestamptz NOT NULL,
  endpoint text NOT NULL,
  subject_type text,
  subject_id text,
  action text,
  resource_type text,
  resource_id text,
  decision boolean NOT NULL,
  reason jsonb NOT NULL DEFAULT '{}',
  request_id text,
  api_secret_id uuid,
  duration_us integer,
  sample_rate real NOT NULL DEFAULT 1 CHECK (sample_rate > 0 AND sample_rate <= 1),
  PRIMARY KEY (id, decided_at)
) PARTITION BY RANGE (decided_at);
CREATE TABLE authzen_decisions_default PARTITION OF authzen_decisions DEFAULT;
SELECT partition_ensure_months('authzen_decisions', coalesce((SELECT min(decided_at) FROM authzen_decisions_unpartitioned), now()), 2);
INSERT INTO authzen_decisions OVERRIDING SYSTEM VALUE
  SELECT id, seq, environment_id, decided_at, endpoint, subject_type, subject_id, action, resource_type, resource_id, decision, reason,
    request_id, api_secret_id, duration_us, sample_rate FROM authzen_decisions_unpartitioned;
SELECT setval(pg_get_serial_sequence('authzen_decisions', 'seq'), coalesce((SELECT max(seq) FROM authzen_decisions), 0) + 1, false);
DROP TABLE authzen_decisions_unpartitioned;
ALTER TABLE authzen_decisions RENAME CONSTRAINT authzen_decisions_pkey1 TO authzen_decisions_pkey;
CREATE INDEX authzen_decisions__environment ON authzen_decisions (environment_id, seq DESC);
CREATE INDEX authzen_decisions__decided ON authzen_decisions (decided_at);
