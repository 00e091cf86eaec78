import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { User } from './rows.ts';

/** The columns of the SPEC User shape (./rows.ts), unqualified. */
export const userColumns = sql.fragment`
  id, coalesce(external_id, id::text) AS "externalId", user_name AS "userName", display_name AS "displayName",
  nick_name AS "nickName", profile_url AS "profileUrl", title, user_type AS "userType",
  preferred_language AS "preferredLanguage", locale, timezone, active, names, photos, phone_numbers AS "phoneNumbers",
  addresses, emails, verifications, provider, created_at AS "createdAt", updated_at AS "updatedAt", environment_id AS "environmentId"`;

const UserAccess = z.object({
  id: z.uuid(),
  active: z.boolean(),
  environmentId: z.uuid(),
  managementScopes: z.array(z.string()),
  organizationIds: z.array(z.uuid()),
});
export type UserAccess = z.infer<typeof UserAccess>;

export interface NewUser {
  environmentId: string;
  userName: string;
  displayName: string | null;
  email: string;
  managementScopes: string[];
}

export function createUserQueries(db: CommonQueryMethods) {
  return {
    findUserById: (environmentId: string, id: string) =>
      db.maybeOne(sql.type(User)`SELECT ${userColumns} FROM users WHERE environment_id = ${environmentId} AND id = ${id}`),

    /** What authentication needs to know of a user: whether it may act, with which scopes, in which organizations. */
    findUserAccess: (id: string) =>
      db.maybeOne(sql.type(UserAccess)`
        SELECT u.id, u.active, u.environment_id AS "environmentId", u.management_scopes AS "managementScopes",
          ARRAY(SELECT m.organization_id FROM organization_members m WHERE m.user_id = u.id AND m.active) AS "organizationIds"
        FROM users u WHERE u.id = ${id}`),

    /** Inserts a user whose email is verified (an operator created by the service itself). */
    insertVerifiedUser: (user: NewUser) => {
      const emailId = crypto.randomUUID();
      const now = new Date().toISOString();
      const emails = [{ id: emailId, value: user.email, type: 'work' }];
      const verifications = [{ id: crypto.randomUUID(), email: user.email, verified: true, createdAt: now, updatedAt: now }];
      return db.one(sql.type(User)`
        INSERT INTO users (environment_id, user_name, display_name, emails, verifications, management_scopes)
        VALUES (${user.environmentId}, ${user.userName}, ${user.displayName}, ${sql.jsonb(emails)}, ${sql.jsonb(verifications)},
          ${sql.array(user.managementScopes, 'text')})
        RETURNING ${userColumns}`);
    },
  };
}
