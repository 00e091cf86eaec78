-- Webhook endpoints, notification channels, and the durable deliveries of events to them.

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  environment_id uuid REFERENCES environments (id) ON DELETE CASCADE,
  url text NOT NULL,
  description text,
  event_types text[] NOT NULL,
  active boolean NOT NULL DEFAULT true,
  disabled_reason text CHECK (disabled_reason IN ('manual', 'gone', 'failing')),
  disabled_at timestamptz,
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints__tenant_id ON webhook_endpoints (tenant_id);

-- Signing secrets of an endpoint: the current one (expires_at NULL) and, after a rotation, the previous
-- one until its overlap ends. Encrypted under the master key.
CREATE TABLE webhook_secrets (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  secret_encrypted text NOT NULL,
  prefix text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz
);
CREATE INDEX webhook_secrets__endpoint_id ON webhook_secrets (endpoint_id);

CREATE TABLE notification_channels (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  environment_id uuid REFERENCES environments (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('webhook', 'slack', 'teams', 'pagerduty', 'datadog')),
  name text NOT NULL,
  event_types text[] NOT NULL,
  config jsonb NOT NULL DEFAULT '{}',
  secrets_encrypted text NOT NULL,
  secret_hints jsonb NOT NULL DEFAULT '{}',
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notification_channels__tenant_id ON notification_channels (tenant_id);

-- One delivery of one event to one endpoint or channel. The unique indexes make the dispatcher
-- idempotent: one original delivery per (event, target), however many dispatchers run.
CREATE TABLE deliveries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES events (id),
  endpoint_id uuid REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  channel_id uuid REFERENCES notification_channels (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempt_count integer NOT NULL DEFAULT 0,
  last_attempt_at timestamptz,
  next_attempt_at timestamptz,
  completed_at timestamptz,
  failure_reason text,
  redelivery_of uuid REFERENCES deliveries (id) ON DELETE SET NULL,
  process_started boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((endpoint_id IS NULL) <> (channel_id IS NULL))
);
CREATE UNIQUE INDEX deliveries__event_id_endpoint_id ON deliveries (event_id, endpoint_id) WHERE redelivery_of IS NULL AND endpoint_id IS NOT NULL;
CREATE UNIQUE INDEX deliveries__event_id_channel_id ON deliveries (event_id, channel_id) WHERE redelivery_of IS NULL AND channel_id IS NOT NULL;
CREATE INDEX deliveries__endpoint_id_created_at ON deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX deliveries__channel_id_created_at ON deliveries (channel_id, created_at DESC, id DESC);
CREATE INDEX deliveries__unstarted ON deliveries (created_at) WHERE NOT process_started;

CREATE TABLE delivery_attempts (
  delivery_id uuid NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status_code integer,
  error text,
  response_excerpt text,
  retry_after_ms integer,
  PRIMARY KEY (delivery_id, attempt)
);

-- How far the dispatcher has turned events into deliveries, in stream order (tx_id, sequence); one row,
-- locked while dispatching.
CREATE TABLE dispatch_cursor (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  last_tx_id xid8 NOT NULL DEFAULT '0',
  last_sequence bigint NOT NULL DEFAULT 0
);
-- Stream order of events (readers and the dispatcher page by it).
CREATE INDEX events__tx_id_sequence ON events (tx_id, sequence);
CREATE INDEX events__tenant_id_tx_id_sequence ON events (tenant_id, tx_id, sequence);
INSERT INTO dispatch_cursor DEFAULT VALUES;

-- Wake the dispatcher at commit instead of waiting for its next poll.
CREATE FUNCTION events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('iam_events', '');
  RETURN NULL;
END;
$$;
CREATE TRIGGER events_notify AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION events_notify();
CREATE TRIGGER deliveries_notify AFTER INSERT ON deliveries FOR EACH STATEMENT EXECUTE FUNCTION events_notify();
