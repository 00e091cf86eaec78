import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { selectPage, type PageRequest } from '../../shared/pages.ts';
import { Permission, ResourceType } from './rows.ts';

const columns = sql.fragment`
  t.id, t.key, t.name, t.description, t.stored_instances_only AS "storedInstancesOnly",
  (SELECT coalesce(json_agg(json_build_object('name', a.name, 'description', a.description) ORDER BY a.name), '[]')
    FROM rbac_actions a WHERE a.resource_type_id = t.id) AS actions,
  t.created_at AS "createdAt", t.updated_at AS "updatedAt"`;

export interface ActionInput {
  name: string;
  description?: string | null | undefined;
}

export interface ResourceTypeChanges {
  name?: string | null | undefined;
  description?: string | null | undefined;
  storedInstancesOnly?: boolean | undefined;
}

const Upserted = z.object({ inserted: z.boolean() });
const KeyId = z.object({ key: z.string(), id: z.uuid() });

/** Queries of one environment's RBAC model: every statement is bound to `environmentId`. */
export function createResourceTypeQueries(db: CommonQueryMethods, environmentId: string) {
  const byKey = (key: string, lock?: 'update' | 'share') =>
    db.maybeOne(sql.type(ResourceType)`
      SELECT ${columns} FROM rbac_resource_types t WHERE t.environment_id = ${environmentId} AND t.key = ${key}
      ${lock === 'update' ? sql.fragment`FOR UPDATE` : lock === 'share' ? sql.fragment`FOR KEY SHARE` : sql.fragment``}`);
  return {
    /**
     * The type of the environment with this key. `lock` holds it until the transaction ends: 'update' to change or
     * delete it, 'share' to add rows referencing it (a concurrent delete then comes before, as a 404, or after).
     */
    findResourceType: byKey,

    findResourceTypes: (page: PageRequest) =>
      selectPage(
        db,
        ResourceType,
        sql.fragment`SELECT ${columns} FROM rbac_resource_types t WHERE t.environment_id = ${environmentId}`,
        sql.fragment`t.key`,
        page,
      ),

    /** Every permission (`<type>:<action>`) of the environment, by type key then action name. */
    findPermissions: (page: PageRequest) =>
      selectPage(
        db,
        Permission,
        sql.fragment`
          SELECT t.key || ':' || a.name AS permission, t.key AS "resourceType", a.name AS action, a.description
          FROM rbac_actions a JOIN rbac_resource_types t ON t.id = a.resource_type_id WHERE t.environment_id = ${environmentId}`,
        sql.fragment`t.key, a.name`,
        page,
      ),

    insertResourceType: (t: { key: string; name: string | null; description: string | null; storedInstancesOnly: boolean }) =>
      db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO rbac_resource_types (environment_id, key, name, description, stored_instances_only)
        VALUES (${environmentId}, ${t.key}, ${t.name}, ${t.description}, ${t.storedInstancesOnly}) RETURNING id`),

    /** Changes the fields given (updated_at is the caller's to `touch`). */
    updateResourceType: async (id: string, c: ResourceTypeChanges) => {
      const sets = [
        c.name !== undefined && sql.fragment`name = ${c.name}`,
        c.description !== undefined && sql.fragment`description = ${c.description}`,
        c.storedInstancesOnly !== undefined && sql.fragment`stored_instances_only = ${c.storedInstancesOnly}`,
      ].filter((f) => f !== false);
      if (sets.length === 0) return;
      await db.query(sql.unsafe`UPDATE rbac_resource_types SET ${sql.join(sets, sql.fragment`, `)} WHERE environment_id = ${environmentId} AND id = ${id}`);
    },

    deleteResourceType: (id: string) => db.query(sql.unsafe`DELETE FROM rbac_resource_types WHERE environment_id = ${environmentId} AND id = ${id}`),

    /** Adds or updates one action; true when it was added. */
    upsertAction: async (typeId: string, a: ActionInput) =>
      (
        await db.one(sql.type(Upserted)`
          INSERT INTO rbac_actions (resource_type_id, environment_id, name, description) VALUES (${typeId}, ${environmentId}, ${a.name}, ${a.description ?? null})
          ON CONFLICT (resource_type_id, name) DO UPDATE SET description = EXCLUDED.description
          RETURNING (xmax = 0) AS inserted`)
      ).inserted,

    /** Adds the actions or updates their descriptions. */
    upsertActions: (typeId: string, actions: ActionInput[]) =>
      db.query(sql.unsafe`
        INSERT INTO rbac_actions (resource_type_id, environment_id, name, description)
        SELECT ${typeId}, ${environmentId}, x.name, x.description
        FROM jsonb_to_recordset(${sql.jsonb(actions.map((a) => ({ name: a.name, description: a.description ?? null })))}) AS x(name text, description text)
        ON CONFLICT (resource_type_id, name) DO UPDATE SET description = EXCLUDED.description`),

    /** Deletes the actions not named (the role permissions on them go with them, by cascade). */
    deleteActionsExcept: (typeId: string, keep: string[]) =>
      db.query(
        sql.unsafe`DELETE FROM rbac_actions WHERE environment_id = ${environmentId} AND resource_type_id = ${typeId} AND NOT (name = ANY(${sql.array(keep, 'text')}))`,
      ),

    deleteAction: async (typeId: string, name: string) =>
      (await db.query(sql.unsafe`DELETE FROM rbac_actions WHERE environment_id = ${environmentId} AND resource_type_id = ${typeId} AND name = ${name}`))
        .rowCount > 0,

    /** The ids of the environment's types with these keys. */
    findTypeIds: async (keys: string[]) =>
      new Map(
        (
          await db.any(sql.type(KeyId)`
            SELECT key, id FROM rbac_resource_types WHERE environment_id = ${environmentId} AND key = ANY(${sql.array(keys, 'text')}) FOR KEY SHARE`)
        ).map((r) => [r.key, r.id]),
      ),

    /** The type id of each of these permissions (`<type>:<action>`) that exists, held until the transaction ends. */
    findPermissionTypeIds: async (permissions: string[]) =>
      new Map(
        (
          await db.any(sql.type(KeyId)`
            SELECT t.key || ':' || a.name AS key, t.id FROM rbac_actions a JOIN rbac_resource_types t ON t.id = a.resource_type_id
            WHERE t.environment_id = ${environmentId} AND t.key || ':' || a.name = ANY(${sql.array(permissions, 'text')}) FOR KEY SHARE OF a`)
        ).map((r) => [r.key, r.id]),
      ),

    touch: (id: string) => db.query(sql.unsafe`UPDATE rbac_resource_types SET updated_at = now() WHERE environment_id = ${environmentId} AND id = ${id}`),
  };
}
