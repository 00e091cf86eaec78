// The email codes of sign-ins (sign_in_email_codes, 0033, 0034): one row per interaction, replaced by each new issue,
// for a first factor or a second (`purpose`: a code of one is never found as the other's). Codes and link tokens are
// stored as SHA-256 only.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { uuid } from '../shared/rows.ts';

const Code = z.object({
  id: uuid,
  userId: uuid.nullable(),
  login: z.string(),
  codeHash: z.instanceof(Buffer),
  tokenHash: z.instanceof(Buffer),
  attempts: z.number(),
  expired: z.boolean(),
  used: z.boolean(),
});
export type EmailCode = z.infer<typeof Code>;
export type EmailCodePurpose = 'first_factor' | 'second_factor';

export interface NewEmailCode {
  id: string;
  interactionUid: string;
  userId: string | null;
  login: string;
  codeHash: Buffer;
  tokenHash: Buffer;
  ttlSeconds: number;
  /** Default `first_factor`. */
  purpose?: EmailCodePurpose;
}

const COLUMNS = sql.fragment`id, user_id AS "userId", login, code_hash AS "codeHash", token_hash AS "tokenHash", attempts,
  expires_at <= now() AS expired, used_at IS NOT NULL AS used`;

/** Queries of one environment's sign-in email codes: every statement is bound to `environmentId`. */
export function createEmailCodeQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /**
     * Stores the interaction's code, replacing the previous one (attempts and use start over) unless that one was
     * sent less than `minIntervalSeconds` ago: then null, nothing changed. One statement, so two requests at once
     * cannot both replace it.
     */
    replace: (c: NewEmailCode, minIntervalSeconds: number) =>
      db.maybeOne(sql.type(z.object({ expiresAt: z.string() }))`
        INSERT INTO sign_in_email_codes (id, environment_id, interaction_uid, user_id, login, code_hash, token_hash, expires_at, purpose)
        VALUES (${c.id}, ${environmentId}, ${c.interactionUid}, ${c.userId}, ${c.login}, ${sql.binary(c.codeHash)}, ${sql.binary(c.tokenHash)},
          now() + make_interval(secs => ${c.ttlSeconds}), ${c.purpose ?? 'first_factor'})
        ON CONFLICT (environment_id, interaction_uid) DO UPDATE SET id = EXCLUDED.id, user_id = EXCLUDED.user_id, login = EXCLUDED.login,
          purpose = EXCLUDED.purpose,
          code_hash = EXCLUDED.code_hash, token_hash = EXCLUDED.token_hash, attempts = 0, expires_at = EXCLUDED.expires_at, used_at = NULL,
          sent_at = now()
        WHERE sign_in_email_codes.sent_at <= now() - make_interval(secs => ${minIntervalSeconds})
        RETURNING to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "expiresAt"`),

    /** The interaction's code for `purpose`, locked for the attempt. */
    find: (interactionUid: string, purpose: EmailCodePurpose = 'first_factor') =>
      db.maybeOne(sql.type(Code)`
        SELECT ${COLUMNS} FROM sign_in_email_codes
        WHERE environment_id = ${environmentId} AND interaction_uid = ${interactionUid} AND purpose = ${purpose} FOR UPDATE`),

    countAttempt: (id: string) =>
      db.query(sql.unsafe`UPDATE sign_in_email_codes SET attempts = attempts + 1 WHERE environment_id = ${environmentId} AND id = ${id}`),

    markUsed: (id: string) => db.query(sql.unsafe`UPDATE sign_in_email_codes SET used_at = now() WHERE environment_id = ${environmentId} AND id = ${id}`),
  };
}
