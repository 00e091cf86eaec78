-- AuthZEN decides each resource type with RBAC or FGA (issue 21). Without a setting, a type the environment's RBAC
-- model defines is RBAC's and a type only its latest FGA model defines is FGA's; `resource_type_engines` says
-- otherwise per type ({"document": "fga", …}). The model trigger (0023) drops the compiled model on every instance.
ALTER TABLE authzen_settings ADD COLUMN resource_type_engines jsonb NOT NULL DEFAULT '{}'
  CHECK (jsonb_typeof(resource_type_engines) = 'object');
ALTER TABLE authzen_settings ALTER COLUMN subject_identifier SET DEFAULT 'any';
