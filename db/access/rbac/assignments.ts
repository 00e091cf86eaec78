import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { selectPage, type PageRequest } from '../../shared/pages.ts';
import { Assignment, type ResourceRef } from './rows.ts';

const columns = sql.fragment`
  a.id, ro.key AS role, a.user_id AS "userId", a.group_id AS "groupId", a.resources, a.condition,
  a.created_at AS "createdAt", a.updated_at AS "updatedAt"`;
const from = sql.fragment`rbac_assignments a JOIN rbac_roles ro ON ro.id = a.role_id`;

export interface AssignmentFilter {
  role?: string | undefined;
  userId?: string | undefined;
  groupId?: string | undefined;
}

const jsonbOrNull = (resources: ResourceRef[] | null) => (resources ? sql.jsonb(resources as never) : null);

/** Queries of one environment's RBAC model: every statement is bound to `environmentId`. */
export function createAssignmentQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    findAssignment: (id: string) =>
      db.maybeOne(sql.type(Assignment)`SELECT ${columns} FROM ${from} WHERE a.environment_id = ${environmentId} AND a.id = ${id}`),

    findAssignments: (f: AssignmentFilter, page: PageRequest) => {
      const where = [
        sql.fragment`a.environment_id = ${environmentId}`,
        f.role !== undefined && sql.fragment`ro.key = ${f.role}`,
        f.userId !== undefined && sql.fragment`a.user_id = ${f.userId}`,
        f.groupId !== undefined && sql.fragment`a.group_id = ${f.groupId}`,
      ].filter((w) => w !== false);
      return selectPage(
        db,
        Assignment,
        sql.fragment`SELECT ${columns} FROM ${from} WHERE ${sql.join(where, sql.fragment` AND `)}`,
        sql.fragment`a.created_at, a.id`,
        page,
      );
    },

    /** Whether the user (or group) is one of the environment's directory; it stays until the transaction ends. */
    subjectExists: (kind: 'user' | 'group', id: string) =>
      db.exists(
        kind === 'user'
          ? sql.type(z.object({ id: z.uuid() }))`SELECT id FROM users WHERE id = ${id} AND environment_id = ${environmentId} FOR KEY SHARE`
          : sql.type(z.object({ id: z.uuid() }))`SELECT id FROM groups WHERE id = ${id} AND environment_id = ${environmentId} FOR KEY SHARE`,
      ),

    insertAssignment: (a: { roleId: string; userId: string | null; groupId: string | null; resources: ResourceRef[] | null; condition: string | null }) =>
      db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO rbac_assignments (environment_id, role_id, user_id, group_id, resources, condition)
        VALUES (${environmentId}, ${a.roleId}, ${a.userId}, ${a.groupId}, ${jsonbOrNull(a.resources)}, ${a.condition}) RETURNING id`),

    updateAssignment: (id: string, c: { resources?: ResourceRef[] | null | undefined; condition?: string | null | undefined }) => {
      const sets = [
        c.resources !== undefined && sql.fragment`resources = ${jsonbOrNull(c.resources)}`,
        c.condition !== undefined && sql.fragment`condition = ${c.condition}`,
        sql.fragment`updated_at = now()`,
      ].filter((f) => f !== false);
      return db.query(sql.unsafe`UPDATE rbac_assignments SET ${sql.join(sets, sql.fragment`, `)} WHERE environment_id = ${environmentId} AND id = ${id}`);
    },

    lockAssignment: (id: string) => db.query(sql.unsafe`SELECT 1 FROM rbac_assignments WHERE environment_id = ${environmentId} AND id = ${id} FOR UPDATE`),

    deleteAssignment: (id: string) => db.query(sql.unsafe`DELETE FROM rbac_assignments WHERE environment_id = ${environmentId} AND id = ${id}`),
  };
}
