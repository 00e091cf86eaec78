// The HR records of departments (directory groups). Lists take extra conditions as SQL fragments over `g` (groups)
// and `d` (hris_departments): the HRIS surface translates its filters into them (FILTERABLE_DEPARTMENT_COLUMNS).
import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { selectPage, type PageRequest } from '../../shared/pages.ts';
import { Department, type DepartmentFields } from './rows.ts';

const columns = sql.fragment`
  d.group_id AS "groupId", d.environment_id AS "environmentId", d.code, d.type, d.parent_id AS "parentId",
  d.manager_id AS "managerId", d.cost_center AS "costCenter", d.active, d.version, d.created_at AS "createdAt", d.updated_at AS "updatedAt"`;

/** What a filter may compare, by the HRIS attribute path, as SQL over `g` and `d`. */
export const FILTERABLE_DEPARTMENT_COLUMNS: Record<string, FragmentSqlToken> = {
  id: sql.fragment`g.id`,
  externalId: sql.fragment`g.external_id`,
  displayName: sql.fragment`g.name`,
  code: sql.fragment`d.code`,
  type: sql.fragment`d.type`,
  'parent.value': sql.fragment`d.parent_id`,
  'manager.value': sql.fragment`d.manager_id`,
  costCenter: sql.fragment`d.cost_center`,
  active: sql.fragment`d.active`,
  'meta.created': sql.fragment`d.created_at`,
  'meta.lastModified': sql.fragment`greatest(d.updated_at, g.updated_at)`,
};

const values = (f: DepartmentFields) => [f.code, f.type, f.parentId, f.managerId, f.costCenter, f.active];
const Count = z.object({ n: z.number() });
const Ids = z.object({ id: z.uuid() });

/** Queries of one environment's records: every statement is bound to `environmentId`. */
export function createDepartmentQueries(db: CommonQueryMethods, environmentId: string) {
  const find = (groupId: string, lock: 'update' | 'key share' | null = null) =>
    db.maybeOne(sql.type(Department)`
      SELECT ${columns} FROM hris_departments d WHERE d.environment_id = ${environmentId} AND d.group_id = ${groupId}
      ${lock === 'update' ? sql.fragment`FOR UPDATE` : lock ? sql.fragment`FOR KEY SHARE` : sql.fragment``}`);
  return {
    findDepartment: find,

    findDepartments: (where: FragmentSqlToken[], page: PageRequest) =>
      selectPage(
        db,
        Department,
        sql.fragment`SELECT ${columns} FROM hris_departments d JOIN groups g ON g.id = d.group_id
          WHERE ${sql.join([sql.fragment`d.environment_id = ${environmentId}`, ...where], sql.fragment` AND `)}`,
        sql.fragment`d.created_at, d.group_id`,
        page,
      ),

    insertDepartment: async (groupId: string, fields: DepartmentFields) => {
      await db.query(sql.unsafe`
        INSERT INTO hris_departments (group_id, environment_id, code, type, parent_id, manager_id, cost_center, active)
        VALUES (${groupId}, ${environmentId}, ${sql.join(values(fields), sql.fragment`, `)})`);
      return (await find(groupId))!;
    },

    updateDepartment: async (groupId: string, fields: DepartmentFields) => {
      await db.query(sql.unsafe`
        UPDATE hris_departments SET (code, type, parent_id, manager_id, cost_center, active) = (${sql.join(values(fields), sql.fragment`, `)}),
          version = version + 1, updated_at = now()
        WHERE environment_id = ${environmentId} AND group_id = ${groupId}`);
      return (await find(groupId))!;
    },

    /** The department and every ancestor of it, nearest first (stops at a cycle). */
    ancestorsOf: (groupId: string) =>
      db.anyFirst(sql.type(Ids)`
        WITH RECURSIVE up(id, depth) AS (
          SELECT ${groupId}::uuid, 0
          UNION SELECT d.parent_id, up.depth + 1 FROM hris_departments d JOIN up ON d.group_id = up.id
            WHERE d.environment_id = ${environmentId} AND d.parent_id IS NOT NULL AND up.depth < 1000)
        SELECT id FROM up ORDER BY depth`),

    countChildren: (groupId: string) =>
      db.oneFirst(sql.type(Count)`SELECT count(*)::int AS n FROM hris_departments WHERE environment_id = ${environmentId} AND parent_id = ${groupId}`),
  };
}
