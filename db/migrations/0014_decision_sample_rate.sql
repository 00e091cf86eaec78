-- Under load the decision log keeps a sample of decisions; each row records the rate it was kept at, so counts
-- can be weighted back (sum(1 / sample_rate) estimates how many decisions were made).
ALTER TABLE authzen_decisions ADD COLUMN sample_rate real NOT NULL DEFAULT 1 CHECK (sample_rate > 0 AND sample_rate <= 1);
