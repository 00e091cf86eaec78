-- Bounded fan-out: an endpoint is disabled for its backlog ('backlog') when too many of its deliveries wait for a retry
-- (see docs/incoming/webhooks.md); those deliveries of a tenant are counted by endpoint from an index; and the
-- sweeper looks at a pending delivery only once it is overdue (its due time indexed), never while its retry waits.
ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_disabled_reason_check;
ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_disabled_reason_check
  CHECK (disabled_reason IN ('manual', 'gone', 'failing', 'backlog'));
CREATE INDEX deliveries__retrying_by_endpoint ON deliveries (tenant_id, endpoint_id)
  WHERE status = 'pending' AND attempt_count > 0 AND endpoint_id IS NOT NULL;
CREATE INDEX deliveries__pending_due ON deliveries ((coalesce(next_attempt_at, created_at))) WHERE status = 'pending' AND process_started;
