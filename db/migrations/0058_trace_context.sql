-- OpenTelemetry: the W3C traceparent of the request that wrote an event or a process outbox entry (null when
-- tracing is off), so the dispatcher, the process and its activities join that request's trace (lib/telemetry.ts).
ALTER TABLE events ADD COLUMN trace_context text;
ALTER TABLE process_outbox ADD COLUMN trace_context text;
