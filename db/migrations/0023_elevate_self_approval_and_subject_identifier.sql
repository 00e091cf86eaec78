-- Elevate: the directory users who created or replaced each policy, so none of them is auto-approved by it for
-- its own requests. Policies saved before this migration take their authors from the audit log.
ALTER TABLE elevate_policies ADD COLUMN changed_by uuid[] NOT NULL DEFAULT '{}';
UPDATE elevate_policies p SET changed_by = ARRAY(
  SELECT DISTINCT a.actor_id::uuid FROM audit_logs a
  WHERE a.resource_type = 'elevate_policy' AND a.resource_id = p.id::text AND a.actor_type = 'user'
    AND a.action IN ('elevate.policy.create', 'elevate.policy.update')
    AND a.actor_id ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$');

-- A policy names only channels of its own environment or of its whole tenant: drop any other it names today.
UPDATE elevate_policies p SET
  notification_channel_ids = ARRAY(SELECT c FROM unnest(p.notification_channel_ids) c WHERE EXISTS (
    SELECT 1 FROM notification_channels n WHERE n.id = c AND (n.environment_id IS NULL OR n.environment_id = p.environment_id))),
  escalation_channel_ids = ARRAY(SELECT c FROM unnest(p.escalation_channel_ids) c WHERE EXISTS (
    SELECT 1 FROM notification_channels n WHERE n.id = c AND (n.environment_id IS NULL OR n.environment_id = p.environment_id)));

-- AuthZEN: the one kind of identifier a PEP names users (and groups) by in an environment; no row = the default
-- (userName). A change drops the compiled model on every instance (notify_model, 0013).
CREATE TABLE authzen_settings (
  environment_id uuid PRIMARY KEY REFERENCES environments (id) ON DELETE CASCADE,
  subject_identifier text NOT NULL CHECK (subject_identifier IN ('id', 'externalId', 'userName', 'email')),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER authzen_settings_model AFTER INSERT OR DELETE OR UPDATE ON authzen_settings FOR EACH ROW EXECUTE FUNCTION notify_model();
