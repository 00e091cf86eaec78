// The address an emailed second factor goes to: the user's first email (in the order of `emails`) that one of their
// verifications marks verified, as the `email_verified` claim reads them (api/oidc/accounts.ts).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/** Every statement is bound to `environmentId`. */
export function createVerifiedEmailQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** The user's first verified email (lower-cased), or null: none verified, or no such user here. */
    of: (userId: string) =>
      db.maybeOneFirst(sql.type(z.object({ email: z.string() }))`
        SELECT lower(x.value->>'value') AS email
        FROM users u, jsonb_array_elements(u.emails) WITH ORDINALITY AS x (value, n)
        WHERE u.environment_id = ${environmentId} AND u.id = ${userId} AND u.active
          AND EXISTS (SELECT 1 FROM jsonb_array_elements(u.verifications) v
            WHERE lower(v->>'email') = lower(x.value->>'value') AND (v->>'verified')::boolean)
        ORDER BY x.n LIMIT 1`),
  };
}
