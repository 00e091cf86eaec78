import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { Resource } from './rows.ts';

const columns = sql.fragment`
  t.key AS type, r.resource_id AS id, r.attributes, r.created_at AS "createdAt", r.updated_at AS "updatedAt"`;
const from = sql.fragment`rbac_resources r JOIN rbac_resource_types t ON t.id = r.resource_type_id`;
const Upserted = Resource.extend({ created: z.boolean() });

/** Queries of one environment's RBAC model: every statement is bound to `environmentId`. */
export function createResourceQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    findResource: (typeId: string, id: string) =>
      db.maybeOne(
        sql.type(
          Resource,
        )`SELECT ${columns} FROM ${from} WHERE r.environment_id = ${environmentId} AND r.resource_type_id = ${typeId} AND r.resource_id = ${id}`,
      ),

    /** `limit` resources of the type after `after` (by id), optionally only ids starting with `idPrefix`. */
    findResources: (typeId: string, q: { limit: number; after?: string | undefined; idPrefix?: string | undefined }) =>
      db.any(sql.type(Resource)`
        SELECT ${columns} FROM ${from} WHERE r.environment_id = ${environmentId} AND r.resource_type_id = ${typeId}
          ${q.after !== undefined ? sql.fragment`AND r.resource_id > ${q.after}` : sql.fragment``}
          ${q.idPrefix ? sql.fragment`AND starts_with(r.resource_id, ${q.idPrefix})` : sql.fragment``}
        ORDER BY r.resource_id LIMIT ${q.limit}`),

    /** Stores or replaces one resource; `created` tells which. */
    upsertResource: (typeId: string, id: string, attributes: Record<string, unknown>) =>
      db.one(sql.type(Upserted)`
        WITH r AS (
          INSERT INTO rbac_resources (environment_id, resource_type_id, resource_id, attributes)
          VALUES (${environmentId}, ${typeId}, ${id}, ${sql.jsonb(attributes as never)})
          ON CONFLICT (resource_type_id, resource_id) DO UPDATE SET attributes = EXCLUDED.attributes, updated_at = now()
          RETURNING *, (xmax = 0) AS created
        )
        SELECT ${columns}, r.created FROM r JOIN rbac_resource_types t ON t.id = r.resource_type_id`),

    /** Stores or replaces many resources of one type in one statement. */
    upsertResources: (typeId: string, resources: { id: string; attributes: Record<string, unknown> }[]) =>
      db.query(sql.unsafe`
        INSERT INTO rbac_resources (environment_id, resource_type_id, resource_id, attributes)
        SELECT ${environmentId}, ${typeId}, x.id, x.attributes
        FROM jsonb_to_recordset(${sql.jsonb(resources as never)}) AS x(id text, attributes jsonb)
        ON CONFLICT (resource_type_id, resource_id) DO UPDATE SET attributes = EXCLUDED.attributes, updated_at = now()`),

    deleteResource: (typeId: string, id: string) =>
      db.query(sql.unsafe`DELETE FROM rbac_resources WHERE environment_id = ${environmentId} AND resource_type_id = ${typeId} AND resource_id = ${id}`),
  };
}
