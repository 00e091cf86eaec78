// What the MFA policy reads of an environment's RBAC model: which role keys exist, and whether a user holds one of
// a set of roles (assigned to the user or to one of its groups, or inherited through rbac_role_inheritance).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Key = z.object({ key: z.string() });
const Holds = z.object({ holds: z.boolean() });

/** Role look-ups of one environment: every statement is bound to `environmentId`. */
export function createMfaRoleQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** Which of `keys` are roles of the environment. */
    existingKeys: async (keys: string[]) =>
      new Set(
        await db.anyFirst(sql.type(Key)`
          SELECT key FROM rbac_roles WHERE environment_id = ${environmentId} AND key = ANY(${sql.array(keys, 'text')})`),
      ),

    /** Whether the user holds any role named in `keys`, directly, through a group, or by inheritance. */
    holdsAny: async (userId: string, keys: string[]) =>
      keys.length > 0 &&
      (await db.oneFirst(sql.type(Holds)`
        WITH RECURSIVE held (role_id) AS (
          SELECT a.role_id FROM rbac_assignments a
          WHERE a.environment_id = ${environmentId}
            AND (a.user_id = ${userId}
              OR a.group_id IN (SELECT m.group_id FROM group_members m WHERE m.environment_id = ${environmentId} AND m.user_id = ${userId}))
          UNION
          SELECT i.inherits_role_id FROM rbac_role_inheritance i JOIN held h ON i.role_id = h.role_id WHERE i.environment_id = ${environmentId}
        )
        SELECT EXISTS (
          SELECT 1 FROM held JOIN rbac_roles r ON r.id = held.role_id
          WHERE r.environment_id = ${environmentId} AND r.key = ANY(${sql.array(keys, 'text')})
        ) AS holds`)),
  };
}
