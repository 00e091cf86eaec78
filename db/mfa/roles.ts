// What the MFA policy reads of an environment's RBAC model: which role keys exist, and whether a user holds one of
// a set of roles (assigned to the user or to one of its groups, granted by an active elevate grant, or inherited
// through rbac_role_inheritance).
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

    /**
     * Whether the user holds any role named in `keys`: assigned to the user or to one of its groups, granted by an
     * active elevate grant (to the role, or membership of a group), or inherited from one of those.
     */
    holdsAny: async (userId: string, keys: string[]) =>
      keys.length > 0 &&
      (await db.oneFirst(sql.type(Holds)`
        WITH RECURSIVE elevated AS (
          SELECT g.role_id, g.group_id FROM elevate_grants g
          WHERE g.environment_id = ${environmentId} AND g.user_id = ${userId} AND g.revoked_at IS NULL
            AND g.activated_at <= now() AND now() < g.expires_at
        ),
        groups_of AS (
          SELECT m.group_id FROM group_members m WHERE m.environment_id = ${environmentId} AND m.user_id = ${userId}
          UNION SELECT group_id FROM elevated WHERE group_id IS NOT NULL
        ),
        held (role_id) AS (
          SELECT a.role_id FROM rbac_assignments a
          WHERE a.environment_id = ${environmentId} AND (a.user_id = ${userId} OR a.group_id IN (SELECT group_id FROM groups_of))
          UNION
          SELECT role_id FROM elevated WHERE role_id IS NOT NULL
          UNION
          SELECT i.inherits_role_id FROM rbac_role_inheritance i JOIN held h ON i.role_id = h.role_id WHERE i.environment_id = ${environmentId}
        )
        SELECT EXISTS (
          SELECT 1 FROM held JOIN rbac_roles r ON r.id = held.role_id
          WHERE r.environment_id = ${environmentId} AND r.key = ANY(${sql.array(keys, 'text')})
        ) AS holds`)),
  };
}
