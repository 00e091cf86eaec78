-- Transactional outbox of process starts and signals: written in the same transaction as the business
-- row, drained by the dispatcher (which starts or signals, then deletes). A crash between commit and
-- start loses nothing, and the API never needs the engine to be reachable to commit a change.
CREATE TABLE process_outbox (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  action text NOT NULL CHECK (action IN ('start', 'signal')),
  kind text,
  process_id text NOT NULL,
  tenant_id uuid,
  topic text,
  payload jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TRIGGER process_outbox_notify AFTER INSERT ON process_outbox FOR EACH STATEMENT EXECUTE FUNCTION events_notify();
