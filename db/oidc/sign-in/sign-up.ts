// Sign-up's email verification codes (sign_up_codes, 0028) and marking a user's email verified. A code is stored as
// the SHA-256 of `code:id`, never itself.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { uuid } from '../../shared/rows.ts';

const Code = z.object({ id: uuid, userId: uuid, email: z.string(), codeHash: z.instanceof(Buffer), attempts: z.number(), expired: z.boolean() });
export type SignUpCode = z.infer<typeof Code>;

/** Queries of one environment's sign-up codes: every statement is bound to `environmentId`. */
export function createSignUpQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    insertCode: (code: { id: string; userId: string; email: string; codeHash: Buffer; ttlSeconds: number }) =>
      db.query(sql.unsafe`
        INSERT INTO sign_up_codes (id, environment_id, user_id, email, code_hash, expires_at)
        VALUES (${code.id}, ${environmentId}, ${code.userId}, ${code.email}, ${sql.binary(code.codeHash)}, now() + make_interval(secs => ${code.ttlSeconds}))`),

    /** The code `id`, locked for the attempt. */
    findCode: (id: string) =>
      db.maybeOne(sql.type(Code)`
        SELECT id, user_id AS "userId", email, code_hash AS "codeHash", attempts, expires_at <= now() AS expired
        FROM sign_up_codes WHERE environment_id = ${environmentId} AND id = ${id} FOR UPDATE`),

    countAttempt: (id: string) => db.query(sql.unsafe`UPDATE sign_up_codes SET attempts = attempts + 1 WHERE environment_id = ${environmentId} AND id = ${id}`),

    deleteCodesOf: (userId: string) => db.query(sql.unsafe`DELETE FROM sign_up_codes WHERE environment_id = ${environmentId} AND user_id = ${userId}`),

    /** Adds a verified entry for `email` to the user's verifications (the `email_verified` claim reads them). */
    markEmailVerified: (userId: string, email: string) =>
      db.query(sql.unsafe`
        UPDATE users SET verifications = verifications || jsonb_build_array(jsonb_build_object('id', gen_random_uuid(), 'email', ${email}::text,
            'verified', true, 'createdAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'updatedAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))),
          updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${userId}`),
  };
}
