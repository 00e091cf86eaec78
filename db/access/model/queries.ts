// An environment's whole access model (directory and RBAC) in one round trip: one statement that builds the JSON
// document the engine compiles (lib/authz/model.ts). Rows are not validated one by one (100k resource instances
// would cost more than the query): the document is built here from constrained columns, so its shape is known.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { StoredModel } from '../../../lib/authz/model.ts';

type Loaded = Omit<StoredModel, 'resources'> & { resources: [string, string, Record<string, unknown>][] };
const Document = z.object({ model: z.custom<Loaded>((v) => typeof v === 'object' && v !== null) });

export function createModelQueries(db: CommonQueryMethods) {
  return {
    loadModel: async (environmentId: string): Promise<StoredModel> => {
      const loaded = await db.oneFirst(sql.type(Document)`
        SELECT json_build_object(
          'subjectIdentifier', (SELECT s.subject_identifier FROM authzen_settings s WHERE s.environment_id = ${environmentId}),
          'resourceTypeEngines', (SELECT s.resource_type_engines FROM authzen_settings s WHERE s.environment_id = ${environmentId}),
          'users', (SELECT coalesce(json_agg(json_build_object(
              'id', u.id, 'userName', u.user_name, 'externalId', u.external_id, 'displayName', u.display_name, 'active', u.active,
              'emails', (SELECT coalesce(json_agg(e.email ORDER BY e.email), '[]') FROM user_emails e WHERE e.user_id = u.id),
              'attributes', u.attributes,
              'groupIds', (SELECT coalesce(json_agg(m.group_id), '[]') FROM group_members m WHERE m.user_id = u.id)
            ) ORDER BY u.created_at, u.id), '[]') FROM users u WHERE u.environment_id = ${environmentId}),
          'groups', (SELECT coalesce(json_agg(json_build_object(
              'id', g.id, 'name', g.name, 'externalId', g.external_id, 'attributes', g.attributes
            ) ORDER BY g.created_at, g.id), '[]') FROM groups g WHERE g.environment_id = ${environmentId}),
          'resourceTypes', (SELECT coalesce(json_agg(json_build_object(
              'id', t.id, 'key', t.key, 'storedInstancesOnly', t.stored_instances_only,
              'actions', (SELECT coalesce(json_agg(a.name ORDER BY a.name), '[]') FROM rbac_actions a WHERE a.resource_type_id = t.id)
            ) ORDER BY t.key), '[]') FROM rbac_resource_types t WHERE t.environment_id = ${environmentId}),
          -- Instances as [typeId, id, attributes] (the bulk of a large model: a third smaller than objects); sorted by the engine.
          'resources', (SELECT coalesce(json_agg(json_build_array(r.resource_type_id, r.resource_id, r.attributes)), '[]')
            FROM rbac_resources r WHERE r.environment_id = ${environmentId}),
          'roles', (SELECT coalesce(json_agg(json_build_object(
              'id', ro.id, 'key', ro.key,
              'permissions', (SELECT coalesce(json_agg(json_build_object('typeId', p.resource_type_id, 'action', p.action, 'condition', p.condition)), '[]')
                FROM rbac_role_permissions p WHERE p.role_id = ro.id),
              'inherits', (SELECT coalesce(json_agg(i.inherits_role_id), '[]') FROM rbac_role_inheritance i WHERE i.role_id = ro.id)
            ) ORDER BY ro.key), '[]') FROM rbac_roles ro WHERE ro.environment_id = ${environmentId}),
          'assignments', (SELECT coalesce(json_agg(json_build_object(
              'id', a.id, 'roleId', a.role_id, 'userId', a.user_id, 'groupId', a.group_id, 'resources', a.resources, 'condition', a.condition
            ) ORDER BY a.created_at, a.id), '[]') FROM rbac_assignments a WHERE a.environment_id = ${environmentId}),
          'agents', (SELECT coalesce(json_agg(json_build_object(
              'id', e.id, 'kind', e.kind, 'subject', e.subject, 'status', e.status, 'allowedTools', e.allowed_tools, 'manifestHash', e.tool_manifest_hash
            ) ORDER BY e.created_at, e.id), '[]') FROM trust_store_entries e WHERE e.environment_id = ${environmentId}),
          -- Active elevate grants (the engine checks their window at each decision; expiry needs no reload).
          'elevations', (SELECT coalesce(json_agg(json_build_object(
              'grantId', g.id, 'userId', g.user_id, 'roleId', g.role_id, 'groupId', g.group_id, 'resources', g.resources,
              'from', extract(epoch FROM g.activated_at) * 1000, 'until', extract(epoch FROM g.expires_at) * 1000
            ) ORDER BY g.created_at, g.id), '[]') FROM elevate_grants g
            WHERE g.environment_id = ${environmentId} AND g.state = 'active' AND g.expires_at > now()),
          -- Billing entitlements by organization (conditions' subject.entitlements); a change sends iam_models (0053).
          'entitlements', (SELECT json_object_agg(b.organization_id, b.entitlements) FROM billing_entitlements b WHERE b.environment_id = ${environmentId})
        ) AS model`);
      const { elevations, subjectIdentifier, resourceTypeEngines, entitlements, ...model } = loaded;
      return {
        ...model,
        ...(subjectIdentifier ? { subjectIdentifier } : {}),
        ...(resourceTypeEngines && Object.keys(resourceTypeEngines).length > 0 ? { resourceTypeEngines } : {}),
        resources: loaded.resources.map(([typeId, id, attributes]) => ({ typeId, id, attributes })),
        ...(elevations?.length ? { elevations } : {}),
        ...(entitlements ? { entitlements } : {}),
      };
    },
  };
}
