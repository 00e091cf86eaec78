-- Per-entry backoff and a dead-letter state for the process outbox: an entry the engine refuses (a signal to
-- an unknown process, an engine error) is retried with backoff without holding up the entries behind it, and
-- after the dispatcher's attempt limit it is dead (kept, listed and retried by operators through the API).
-- The dispatcher claims entries with a short lease in one statement and calls the engine outside any transaction.
ALTER TABLE process_outbox
  ADD COLUMN attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN leased_until timestamptz,
  ADD COLUMN last_error text,
  ADD COLUMN dead_at timestamptz;

CREATE INDEX process_outbox_due ON process_outbox (next_attempt_at, id) WHERE dead_at IS NULL;
CREATE INDEX process_outbox_process ON process_outbox (process_id, id) WHERE dead_at IS NULL;
