// What accepting or introspecting an impersonation token reads: its grant, in force or not, and its user.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const GrantAccess = z.object({
  id: z.uuid(),
  environmentId: z.uuid(),
  tenantId: z.uuid(),
  userId: z.uuid(),
  tokenId: z.uuid(),
  actorType: z.string(),
  actorId: z.uuid(),
  /** Not revoked, not marked expired, before expiresAt, and its user active. */
  inForce: z.boolean(),
  expiresAt: z.number(),
});
export type GrantAccess = z.infer<typeof GrantAccess>;

export function createImpersonationAccessQueries(db: CommonQueryMethods) {
  return {
    findGrantAccess: (grantId: string) =>
      db.maybeOne(sql.type(GrantAccess)`
        SELECT g.id, g.environment_id AS "environmentId", g.tenant_id AS "tenantId", g.user_id AS "userId", g.token_id AS "tokenId",
          g.actor_type AS "actorType", g.actor_id AS "actorId",
          (g.revoked_at IS NULL AND g.expired_at IS NULL AND g.expires_at > now() AND u.active) AS "inForce",
          (extract(epoch FROM g.expires_at) * 1000)::float8 AS "expiresAt"
        FROM impersonation_grants g JOIN users u ON u.id = g.user_id WHERE g.id = ${grantId}`),
  };
}
