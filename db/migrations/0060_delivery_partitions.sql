-- Deliveries (to webhook endpoints, notification channels and forwarding add-ons) and their attempts are partitioned by
-- month like the logs of 0057 (RANGE on `filed_at`, UTC months, a DEFAULT partition each), so the retention process
-- drops whole months of them (DELIVERIES_RETENTION) instead of deleting rows. Rows are copied over: this works on a
-- database that holds data.
--
-- The partition key, `filed_at`. A unique index of a partitioned table must contain the partition key, and the
-- dispatcher's idempotency key is one original delivery per (event, target). An original delivery is filed at its
-- event's `occurred_at`: every original delivery of one event is in the event's month, so (event_id, target, filed_at)
-- is unique exactly when (event_id, target) is. A redelivery (which no key constrains) is filed when it is made, the
-- time its retries start from. Attempts carry their delivery's `filed_at`: a delivery and its attempts share a month and
-- go together.
--
-- Foreign keys dropped (a key to a partitioned table must contain its partition key, and detaching a referenced month
-- would check every referencing row while the table is locked):
-- - delivery_attempts.delivery_id → deliveries: a delivery's attempts are deleted with it by the trigger below instead
--   (deleting a delivery is what an endpoint's, a channel's, an add-on's or a tenant's deletion does); attempts are only
--   written for a delivery read in the same statement.
-- - deliveries.redelivery_of → deliveries: a redelivery can be filed months after its original, whose month goes first;
--   `redelivery_of` then names a delivery no longer kept. A redelivery has its original's target, so deleting the target
--   deletes both: the key's ON DELETE SET NULL never had anything left to do.

ALTER TABLE delivery_attempts RENAME TO delivery_attempts_unpartitioned;
ALTER TABLE delivery_attempts_unpartitioned RENAME CONSTRAINT delivery_attempts_pkey TO delivery_attempts_unpartitioned_pkey;
ALTER TABLE deliveries RENAME TO deliveries_unpartitioned;
ALTER TABLE deliveries_unpartitioned RENAME CONSTRAINT deliveries_pkey TO deliveries_unpartitioned_pkey;

CREATE TABLE deliveries (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL CONSTRAINT deliveries_tenant_id_fkey REFERENCES tenants (id) ON DELETE CASCADE,
  event_id uuid NOT NULL,
  endpoint_id uuid CONSTRAINT deliveries_endpoint_id_fkey REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  channel_id uuid CONSTRAINT deliveries_channel_id_fkey REFERENCES notification_channels (id) ON DELETE CASCADE,
  add_on_id uuid CONSTRAINT deliveries_add_on_id_fkey REFERENCES add_ons (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CONSTRAINT deliveries_status_check CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempt_count integer NOT NULL DEFAULT 0,
  last_attempt_at timestamptz,
  next_attempt_at timestamptz,
  completed_at timestamptz,
  failure_reason text,
  redelivery_of uuid,
  process_started boolean NOT NULL DEFAULT false,
  batch_id uuid,
  filed_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT deliveries_one_target_check CHECK (num_nonnulls(endpoint_id, channel_id, add_on_id) = 1),
  PRIMARY KEY (id, filed_at)
) PARTITION BY RANGE (filed_at);
CREATE TABLE deliveries_default PARTITION OF deliveries DEFAULT;

CREATE TABLE delivery_attempts (
  delivery_id uuid NOT NULL,
  attempt integer NOT NULL,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status_code integer,
  error text,
  response_excerpt text,
  retry_after_ms integer,
  filed_at timestamptz NOT NULL,
  PRIMARY KEY (delivery_id, attempt, filed_at)
) PARTITION BY RANGE (filed_at);
CREATE TABLE delivery_attempts_default PARTITION OF delivery_attempts DEFAULT;

-- An original delivery whose event is gone (events kept shorter than deliveries were, before this) is filed at its creation.
CREATE TEMPORARY TABLE delivery_filing ON COMMIT DROP AS
  SELECT d.id, CASE WHEN d.redelivery_of IS NULL THEN coalesce(e.occurred_at, d.created_at) ELSE d.created_at END AS filed_at
  FROM deliveries_unpartitioned d LEFT JOIN events e ON e.id = d.event_id;
SELECT partition_ensure_months(parent, coalesce((SELECT min(filed_at) FROM delivery_filing), now()), 2)
  FROM unnest(ARRAY['deliveries', 'delivery_attempts']) AS parent;
INSERT INTO deliveries (id, tenant_id, event_id, endpoint_id, channel_id, add_on_id, status, attempt_count, last_attempt_at,
    next_attempt_at, completed_at, failure_reason, redelivery_of, process_started, batch_id, filed_at, created_at, updated_at)
  SELECT d.id, d.tenant_id, d.event_id, d.endpoint_id, d.channel_id, d.add_on_id, d.status, d.attempt_count, d.last_attempt_at,
    d.next_attempt_at, d.completed_at, d.failure_reason, d.redelivery_of, d.process_started, d.batch_id, f.filed_at, d.created_at, d.updated_at
  FROM deliveries_unpartitioned d JOIN delivery_filing f ON f.id = d.id;
INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, response_excerpt, retry_after_ms, filed_at)
  SELECT a.delivery_id, a.attempt, a.started_at, a.duration_ms, a.status_code, a.error, a.response_excerpt, a.retry_after_ms, f.filed_at
  FROM delivery_attempts_unpartitioned a JOIN delivery_filing f ON f.id = a.delivery_id;
DROP TABLE delivery_attempts_unpartitioned;
DROP TABLE deliveries_unpartitioned;

-- The dispatcher's idempotency: one original delivery per (event, target) (filed_at is the event's: see above).
CREATE UNIQUE INDEX deliveries__event_id_endpoint_id ON deliveries (event_id, endpoint_id, filed_at) WHERE redelivery_of IS NULL AND endpoint_id IS NOT NULL;
CREATE UNIQUE INDEX deliveries__event_id_channel_id ON deliveries (event_id, channel_id, filed_at) WHERE redelivery_of IS NULL AND channel_id IS NOT NULL;
CREATE UNIQUE INDEX deliveries__event_id_add_on_id ON deliveries (event_id, add_on_id, filed_at) WHERE redelivery_of IS NULL AND add_on_id IS NOT NULL;
CREATE INDEX deliveries__endpoint_id_created_at ON deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX deliveries__channel_id_created_at ON deliveries (channel_id, created_at DESC, id DESC);
CREATE INDEX deliveries__add_on_id_created_at ON deliveries (add_on_id, created_at DESC, id DESC) WHERE add_on_id IS NOT NULL;
CREATE INDEX deliveries__batch_id ON deliveries (batch_id) WHERE batch_id IS NOT NULL;
CREATE INDEX deliveries__unstarted ON deliveries (created_at) WHERE NOT process_started;
CREATE INDEX deliveries__retrying_by_endpoint ON deliveries (tenant_id, endpoint_id) WHERE status = 'pending' AND attempt_count > 0 AND endpoint_id IS NOT NULL;
CREATE INDEX deliveries__pending_due ON deliveries ((coalesce(next_attempt_at, created_at))) WHERE status = 'pending' AND process_started;

CREATE TRIGGER deliveries_notify AFTER INSERT ON deliveries FOR EACH STATEMENT EXECUTE FUNCTION events_notify();

-- What the foreign key's ON DELETE CASCADE did: a deleted delivery's attempts go with it (one statement per deletion).
CREATE FUNCTION deliveries_delete_attempts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM delivery_attempts a USING deleted d WHERE a.delivery_id = d.id AND a.filed_at = d.filed_at;
  RETURN NULL;
END;
$$;
CREATE TRIGGER deliveries_delete_attempts AFTER DELETE ON deliveries REFERENCING OLD TABLE AS deleted
  FOR EACH STATEMENT EXECUTE FUNCTION deliveries_delete_attempts();
