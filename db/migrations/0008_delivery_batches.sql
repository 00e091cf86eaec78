-- Deliveries are first attempted in batches (one durable process per batch); only deliveries whose first
-- attempt fails get a process of their own for the retry schedule.
ALTER TABLE deliveries ADD COLUMN batch_id uuid;
CREATE INDEX deliveries__batch_id ON deliveries (batch_id) WHERE batch_id IS NOT NULL;
DROP INDEX deliveries__unstarted;
CREATE INDEX deliveries__unstarted ON deliveries (created_at) WHERE NOT process_started;
