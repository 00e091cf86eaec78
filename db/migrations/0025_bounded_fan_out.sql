-- Bounded fan-out: an endpoint is disabled for its backlog ('backlog') when too many of its deliveries wait (see
-- docs/incoming/webhooks.md); the pending deliveries of a tenant are counted by endpoint from an index; and the
-- sweeper looks at a pending delivery only once it is overdue (its due time indexed), never while its retry waits.
ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_disabled_reason_check;
ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_disabled_reason_check
  CHECK (disabled_reason IN ('manual', 'gone', 'failing', 'backlog'));
CREATE INDEX deliveries__pending_by_endpoint ON deliveries (tenant_id, endpoint_id) WHERE status = 'pending' AND endpoint_id IS NOT NULL;
CREATE INDEX deliveries__pending_due ON deliveries ((coalesce(next_attempt_at, created_at))) WHERE status = 'pending' AND process_started;
