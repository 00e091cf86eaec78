// Directory users as the provider's accounts: the SPEC user shape plus the attributes claim mappings read.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { userColumns } from '../../identity/users/queries.ts';
import { User } from '../../identity/users/rows.ts';

export const AccountRow = User.extend({ attributes: z.record(z.string(), z.unknown()), scim: z.record(z.string(), z.unknown()) });
export type AccountRow = z.infer<typeof AccountRow>;

export function createProviderAccountQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** An active user of the environment (a deactivated or deleted one is no account). */
    findActive: (userId: string) =>
      z.uuid().safeParse(userId).success
        ? db.maybeOne(sql.type(AccountRow)`
            SELECT ${userColumns}, attributes, scim FROM users WHERE environment_id = ${environmentId} AND id = ${userId} AND active`)
        : Promise.resolve(null),
  };
}
