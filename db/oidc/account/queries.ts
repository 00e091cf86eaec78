// What the account endpoints of an environment's provider read: the user an access token names, with the password
// hash a change verifies, and that hash again, locked, in the changing transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { uuid } from '../../shared/rows.ts';

const AccountUser = z.object({
  id: uuid,
  userName: z.string(),
  active: z.boolean(),
  /** The user's first email, lower-cased (home-realm discovery and the password policy read it). */
  email: z.string().nullable(),
  hash: z.string().nullable(),
});
export type AccountUser = z.infer<typeof AccountUser>;

/** Queries of one environment's accounts: every statement is bound to `environmentId`. */
export function createAccountQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    findUser: (userId: string) =>
      db.maybeOne(sql.type(AccountUser)`
        SELECT u.id, u.user_name AS "userName", u.active, (SELECT lower(x->>'value') FROM jsonb_array_elements(u.emails) x LIMIT 1) AS email, p.hash
        FROM users u LEFT JOIN user_passwords p ON p.user_id = u.id AND p.environment_id = ${environmentId}
        WHERE u.environment_id = ${environmentId} AND u.id = ${userId}`),

    /** The user's password hash, locked until the transaction ends (a change compares it with the one it verified). */
    lockHash: (userId: string) =>
      db.maybeOneFirst(sql.type(z.object({ hash: z.string() }))`
        SELECT hash FROM user_passwords WHERE environment_id = ${environmentId} AND user_id = ${userId} FOR UPDATE`),
  };
}
