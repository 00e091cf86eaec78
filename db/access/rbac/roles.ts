import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { selectPage, type PageRequest } from '../../shared/pages.ts';
import { Role } from './rows.ts';

const columns = sql.fragment`
  ro.id, ro.key, ro.name, ro.description,
  (SELECT coalesce(json_agg(json_build_object('permission', t.key || ':' || p.action, 'resourceType', t.key, 'action', p.action, 'condition', p.condition)
      ORDER BY t.key, p.action, p.condition NULLS FIRST), '[]')
    FROM rbac_role_permissions p JOIN rbac_resource_types t ON t.id = p.resource_type_id WHERE p.role_id = ro.id) AS permissions,
  (SELECT coalesce(json_agg(i.key ORDER BY i.key), '[]')
    FROM rbac_role_inheritance h JOIN rbac_roles i ON i.id = h.inherits_role_id WHERE h.role_id = ro.id) AS inherits,
  ro.created_at AS "createdAt", ro.updated_at AS "updatedAt"`;

/** A permission resolved to its type: what a role row stores. */
export interface StoredPermission {
  resourceTypeId: string;
  action: string;
  condition: string | null;
}

const Edge = z.object({ role: z.string(), inherits: z.string() });
const KeyId = z.object({ key: z.string(), id: z.uuid() });

/** Queries of one environment's RBAC model: every statement is bound to `environmentId`. */
export function createRoleQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** Serialises the changes of an environment's roles, so concurrent edits of inheritance cannot form a cycle. */
    lockRoles: () => db.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext('rbac_roles'), hashtext(${environmentId}))`),

    findRole: (key: string) => db.maybeOne(sql.type(Role)`SELECT ${columns} FROM rbac_roles ro WHERE ro.environment_id = ${environmentId} AND ro.key = ${key}`),

    findRoles: (page: PageRequest) =>
      selectPage(db, Role, sql.fragment`SELECT ${columns} FROM rbac_roles ro WHERE ro.environment_id = ${environmentId}`, sql.fragment`ro.key`, page),

    /** The ids of the roles of the environment with these keys. */
    findRoleIds: async (keys: string[]) =>
      new Map(
        (
          await db.any(
            sql.type(KeyId)`SELECT key, id FROM rbac_roles WHERE environment_id = ${environmentId} AND key = ANY(${sql.array(keys, 'text')}) FOR KEY SHARE`,
          )
        ).map((r) => [r.key, r.id]),
      ),

    /** Every inheritance edge of the environment, by role key. */
    findInheritance: () =>
      db.any(sql.type(Edge)`
        SELECT r.key AS role, i.key AS inherits FROM rbac_role_inheritance h
        JOIN rbac_roles r ON r.id = h.role_id JOIN rbac_roles i ON i.id = h.inherits_role_id
        WHERE h.environment_id = ${environmentId}`),

    insertRole: (r: { key: string; name: string | null; description: string | null }) =>
      db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO rbac_roles (environment_id, key, name, description) VALUES (${environmentId}, ${r.key}, ${r.name}, ${r.description}) RETURNING id`),

    updateRole: (id: string, c: { name?: string | null | undefined; description?: string | null | undefined }) => {
      const sets = [
        c.name !== undefined && sql.fragment`name = ${c.name}`,
        c.description !== undefined && sql.fragment`description = ${c.description}`,
        sql.fragment`updated_at = now()`,
      ].filter((f) => f !== false);
      return db.query(sql.unsafe`UPDATE rbac_roles SET ${sql.join(sets, sql.fragment`, `)} WHERE environment_id = ${environmentId} AND id = ${id}`);
    },

    replacePermissions: async (roleId: string, permissions: StoredPermission[]) => {
      await db.query(sql.unsafe`DELETE FROM rbac_role_permissions WHERE environment_id = ${environmentId} AND role_id = ${roleId}`);
      if (permissions.length === 0) return;
      await db.query(sql.unsafe`
        INSERT INTO rbac_role_permissions (role_id, environment_id, resource_type_id, action, condition)
        SELECT ${roleId}, ${environmentId}, x."resourceTypeId", x.action, x.condition
        FROM jsonb_to_recordset(${sql.jsonb(permissions as never)}) AS x("resourceTypeId" uuid, action text, condition text)`);
    },

    replaceInheritance: async (roleId: string, inheritsIds: string[]) => {
      await db.query(sql.unsafe`DELETE FROM rbac_role_inheritance WHERE environment_id = ${environmentId} AND role_id = ${roleId}`);
      await db.query(sql.unsafe`
        INSERT INTO rbac_role_inheritance (role_id, inherits_role_id, environment_id)
        SELECT ${roleId}, i, ${environmentId} FROM unnest(${sql.array(inheritsIds, 'uuid')}) i`);
    },

    deleteRole: (id: string) => db.query(sql.unsafe`DELETE FROM rbac_roles WHERE environment_id = ${environmentId} AND id = ${id}`),
  };
}
