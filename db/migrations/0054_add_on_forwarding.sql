-- Add-ons that forward an environment's events to a vendor (issue 20): `segment` (customer_data: Segment's HTTP
-- Tracking API) and `analytics` (analytics: PostHog's batch API). Their deliveries are rows of `deliveries` like those
-- to webhook endpoints and notification channels (a third target kind, `add_on_id`), sent by the same delivery
-- processes with the same retries and attempt records.
--
-- The kind and category checks are replaced by lists naming every kind known at this point (the `stripe` payments kind
-- of 0053 included); they are dropped by definition rather than by name so that whatever name an earlier migration
-- gave them, none is left behind to refuse the new kinds.
DO $$
DECLARE c record;
BEGIN
  FOR c IN SELECT conname FROM pg_constraint
    WHERE conrelid = 'add_ons'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) ~ '\m(kind|category)\M'
  LOOP
    EXECUTE format('ALTER TABLE add_ons DROP CONSTRAINT %I', c.conname);
  END LOOP;
  FOR c IN SELECT conname FROM pg_constraint
    WHERE conrelid = 'deliveries'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) ~ '\mchannel_id\M'
  LOOP
    EXECUTE format('ALTER TABLE deliveries DROP CONSTRAINT %I', c.conname);
  END LOOP;
END;
$$;
ALTER TABLE add_ons ADD CONSTRAINT add_ons_kind_check
  CHECK (kind IN ('turnstile', 'hcaptcha', 'recaptcha', 'stripe', 'segment', 'analytics'));
ALTER TABLE add_ons ADD CONSTRAINT add_ons_category_check
  CHECK (category IN ('bot_challenge', 'payments', 'customer_data', 'analytics'));

ALTER TABLE deliveries ADD COLUMN add_on_id uuid REFERENCES add_ons (id) ON DELETE CASCADE;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_one_target_check CHECK (num_nonnulls(endpoint_id, channel_id, add_on_id) = 1);
CREATE UNIQUE INDEX deliveries__event_id_add_on_id ON deliveries (event_id, add_on_id) WHERE redelivery_of IS NULL AND add_on_id IS NOT NULL;
CREATE INDEX deliveries__add_on_id_created_at ON deliveries (add_on_id, created_at DESC, id DESC) WHERE add_on_id IS NOT NULL;

-- The forwarding add-ons the dispatcher matches events against (active ones of an environment).
CREATE INDEX add_ons__forwarding ON add_ons (environment_id) WHERE active AND category IN ('customer_data', 'analytics');
