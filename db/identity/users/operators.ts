// Operators of the service are users of the bootstrap environment (DESIGN §5): an organization invite finds
// or creates one by email. A created user's email is unverified until it is verified.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Id = z.object({ id: z.uuid() });
const Bootstrap = z.object({ environmentId: z.uuid(), tenantId: z.uuid() });

export function createOperatorUserQueries(db: CommonQueryMethods) {
  return {
    /** The environment operators live in, from the first start's bootstrap record. */
    findOperatorEnvironment: () =>
      db.maybeOne(sql.type(Bootstrap)`
        SELECT (value->>'environmentId')::uuid AS "environmentId", (value->>'tenantId')::uuid AS "tenantId"
        FROM service_state WHERE key = 'bootstrap'`),

    findUserIdByEmail: (environmentId: string, email: string) =>
      db.maybeOneFirst(sql.type(Id)`
        SELECT id FROM users u WHERE u.environment_id = ${environmentId}
          AND (lower(u.user_name) = lower(${email}) OR EXISTS (SELECT 1 FROM jsonb_array_elements(u.emails) e WHERE lower(e->>'value') = lower(${email})))
        ORDER BY created_at LIMIT 1`),

    insertInvitedUser: (user: { environmentId: string; email: string; managementScopes: string[] }) => {
      const now = new Date().toISOString();
      const emails = [{ id: crypto.randomUUID(), value: user.email, type: 'work' }];
      const verifications = [{ id: crypto.randomUUID(), email: user.email, verified: false, createdAt: now, updatedAt: now }];
      return db.oneFirst(sql.type(Id)`
        INSERT INTO users (environment_id, user_name, emails, verifications, management_scopes)
        VALUES (${user.environmentId}, ${user.email}, ${sql.jsonb(emails)}, ${sql.jsonb(verifications)}, ${sql.array(user.managementScopes, 'text')})
        RETURNING id`);
    },

    /** The user's verified email addresses, lower-cased. */
    // unscoped: the authenticated user's own row, by the id its credential resolved to (an operator accepting an invitation).
    verifiedEmailsOf: async (userId: string) => [
      ...(await db.anyFirst(sql.type(z.object({ email: z.string() }))`
        SELECT DISTINCT lower(v->>'email') AS email FROM users u, jsonb_array_elements(u.verifications) v
        WHERE u.id = ${userId} AND (v->>'verified')::boolean`)),
    ],
  };
}
