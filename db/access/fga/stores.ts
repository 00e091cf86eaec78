// Environments seen as OpenFGA stores: one store per environment, named after its project and itself.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const StoreRow = z.object({ environmentId: z.uuid(), name: z.string(), createdAt: z.string(), updatedAt: z.string() });
export type StoreRow = z.infer<typeof StoreRow>;

const columns = sql.fragment`
  e.id AS "environmentId", p.name || ' / ' || e.name AS name,
  e.created_at AS "createdAt", e.updated_at AS "updatedAt"`;
const from = sql.fragment`FROM environments e JOIN projects p ON p.id = e.project_id`;

export function createFgaStoreQueries(db: CommonQueryMethods) {
  return {
    /** The store of an environment. */
    find: (environmentId: string) => db.maybeOne(sql.type(StoreRow)`SELECT ${columns} ${from} WHERE e.id = ${environmentId}`),

    /** The stores of these tenants in id order (of one name when given), after `after` (a page's last environment id). */
    page: async (tenantIds: readonly string[], after: string | null, limit: number, name?: string) => [
      ...(await db.any(sql.type(StoreRow)`
        SELECT ${columns} ${from} WHERE e.tenant_id = ANY(${sql.array([...tenantIds], 'uuid')})
        ${after === null ? sql.fragment`` : sql.fragment`AND e.id > ${after}`}
        ${name === undefined ? sql.fragment`` : sql.fragment`AND p.name || ' / ' || e.name = ${name}`} ORDER BY e.id LIMIT ${limit}`)),
    ],

    /** The tenant of an environment (the scope guard's look-up for a store id), or null. */
    tenantOf: (environmentId: string) =>
      db.maybeOneFirst(sql.type(z.object({ tenantId: z.uuid() }))`SELECT tenant_id AS "tenantId" FROM environments WHERE id = ${environmentId}`),
  };
}
