// Operators of the service are the users holding management scopes (DESIGN §5: directory users of the bootstrap
// environment). They are protected principals: api/families/directory/protected.ts decides who may change them, and
// provisioning tokens (SCIM, HRIS) never see them. Found through the partial index `users__operators` (0022).
import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';

const Scopes = z.object({ scopes: z.array(z.string()) });
const Id = z.object({ id: z.string() });

/** A condition over users aliased `alias`: the user is no operator. */
export const notOperator = (alias = 'u') => sql.fragment`${sql.identifier([alias, 'management_scopes'])} = '{}'`;

/** `where` (over users aliased `u`), narrowed to users who are no operators. */
export const withoutOperators = (where: FragmentSqlToken | undefined) => (where ? sql.fragment`(${where}) AND ${notOperator()}` : notOperator());

export function createProtectedUserQueries(db: CommonQueryMethods) {
  return {
    /** The management scopes of the user when it is an operator of the environment, else null. */
    operatorScopes: (environmentId: string, userId: string) =>
      db.maybeOneFirst(sql.type(Scopes)`
        SELECT management_scopes AS scopes FROM users
        WHERE environment_id = ${environmentId} AND id = ${userId} AND management_scopes <> '{}'`),

    /** The ids of the environment's operators (few: the service's own operators). */
    operatorIds: async (environmentId: string) =>
      new Set(
        await db.anyFirst(sql.type(Id)`
          SELECT id::text AS id FROM users WHERE environment_id = ${environmentId} AND management_scopes <> '{}'`),
      ),
  };
}
