// What the sign-in pages read and write in one environment: the user a login names (by userName or email,
// case-insensitively, as the directory finds them) with its password hash, and the consent a user gave a client
// (connected apps, oidc_client_grants).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { nullableTimestamp, uuid } from '../../shared/rows.ts';

const SignInUser = z.object({
  id: uuid,
  userName: z.string(),
  active: z.boolean(),
  hash: z.string().nullable(),
  /** A sign-up whose email is not verified yet: no sign-in until it is. */
  pendingSignUp: z.boolean(),
  /** The user's email that `login` names, else their first one (where a password reset link goes). */
  email: z.string().nullable(),
});
export type SignInUser = z.infer<typeof SignInUser>;

/** The client as the sign-in pages show it. */
export interface SignInClient {
  clientId: string;
  name: string;
  logoUri: string | null;
  clientUri: string | null;
  policyUri: string | null;
  tosUri: string | null;
}

const ClientGrant = z.object({ grantId: z.string().nullable(), scopes: z.array(z.string()), revokedAt: nullableTimestamp });

/** Queries of one environment's sign-in: every statement is bound to `environmentId`. */
export function createSignInQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** The user whose userName, or else one of whose emails, is `login` (case-insensitively), with its password hash. */
    findByLogin: (login: string) =>
      db.maybeOne(sql.type(SignInUser)`
        SELECT u.id, u.user_name AS "userName", u.active, p.hash,
          EXISTS (SELECT 1 FROM sign_up_codes c WHERE c.environment_id = ${environmentId} AND c.user_id = u.id) AS "pendingSignUp",
          coalesce((SELECT e.email FROM user_emails e WHERE e.environment_id = ${environmentId} AND e.user_id = u.id AND e.email = lower(${login})),
            (SELECT lower(x->>'value') FROM jsonb_array_elements(u.emails) x LIMIT 1)) AS email
        FROM users u LEFT JOIN user_passwords p ON p.user_id = u.id AND p.environment_id = ${environmentId}
        WHERE u.environment_id = ${environmentId}
          AND (lower(u.user_name) = lower(${login})
            OR u.id IN (SELECT user_id FROM user_emails WHERE environment_id = ${environmentId} AND email = lower(${login})))
        ORDER BY lower(u.user_name) = lower(${login}) DESC, u.created_at LIMIT 1`),

    userName: (userId: string) =>
      db.maybeOneFirst(
        sql.type(z.object({ userName: z.string() }))`SELECT user_name AS "userName" FROM users WHERE environment_id = ${environmentId} AND id = ${userId}`,
      ),

    findClientGrant: (clientId: string, userId: string) =>
      db.maybeOne(sql.type(ClientGrant)`
        SELECT grant_id AS "grantId", scopes, to_char(revoked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "revokedAt"
        FROM oidc_client_grants WHERE environment_id = ${environmentId} AND client_id = ${clientId} AND user_id = ${userId}`),

    /** Records the user's consent to the client: the scopes granted, now, under the provider Grant `grantId`. */
    upsertClientGrant: (clientId: string, userId: string, grantId: string, scopes: string[]) =>
      db.one(sql.type(z.object({ id: uuid }))`
        INSERT INTO oidc_client_grants (environment_id, client_id, user_id, grant_id, scopes)
        VALUES (${environmentId}, ${clientId}, ${userId}, ${grantId}, ${sql.array(scopes, 'text')})
        ON CONFLICT (environment_id, client_id, user_id) DO UPDATE
          SET grant_id = EXCLUDED.grant_id, scopes = EXCLUDED.scopes, consented_at = now(), revoked_at = NULL, updated_at = now()
        RETURNING id`),
  };
}
