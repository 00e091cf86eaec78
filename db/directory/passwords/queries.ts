// Directory passwords (argon2id PHC strings, lib/passwords.ts) and the one-time links by which a user sets one. Only
// the SHA-256 of a link's token is stored; the token itself is shown once, in the link.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../../shared/rows.ts';

export const PasswordLink = z.object({
  id: uuid,
  userId: uuid,
  expiresAt: isoTimestamp,
  usedAt: nullableTimestamp,
  /** Whether the link has expired, by the database's clock. */
  expired: z.boolean(),
});
export type PasswordLink = z.infer<typeof PasswordLink>;

const Hash = z.object({ hash: z.string() });
const ts = (column: string) => sql.fragment`to_char(${sql.identifier([column])} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const linkColumns = sql.fragment`id, user_id AS "userId", ${ts('expires_at')} AS "expiresAt", ${ts('used_at')} AS "usedAt", expires_at <= now() AS expired`;

/** Passwords and password links of one environment: every statement is bound to `environmentId`. */
export function createPasswordQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** Sets (or replaces) the user's password hash. */
    setPassword: (userId: string, hash: string) =>
      db.query(sql.unsafe`
        INSERT INTO user_passwords (user_id, environment_id, hash) VALUES (${userId}, ${environmentId}, ${hash})
        ON CONFLICT (user_id) DO UPDATE SET hash = EXCLUDED.hash, updated_at = now()
        WHERE user_passwords.environment_id = ${environmentId}`),

    /** Removes the user's password (a sign-up without one replacing an unverified sign-up's). */
    deletePassword: (userId: string) => db.query(sql.unsafe`DELETE FROM user_passwords WHERE environment_id = ${environmentId} AND user_id = ${userId}`),

    hashOf: (userId: string) =>
      db.maybeOneFirst(sql.type(Hash)`SELECT hash FROM user_passwords WHERE environment_id = ${environmentId} AND user_id = ${userId}`),

    insertLink: (userId: string, tokenHash: Buffer, expiresInSeconds: number) =>
      db.one(sql.type(PasswordLink)`
        INSERT INTO password_links (environment_id, user_id, token_hash, expires_at)
        VALUES (${environmentId}, ${userId}, ${sql.binary(tokenHash)}, now() + make_interval(secs => ${expiresInSeconds}))
        RETURNING ${linkColumns}`),

    /** The link whose token hashes to `tokenHash`, locked when `lock`. */
    findLink: (tokenHash: Buffer, lock = false) =>
      db.maybeOne(sql.type(PasswordLink)`
        SELECT ${linkColumns} FROM password_links WHERE environment_id = ${environmentId} AND token_hash = ${sql.binary(tokenHash)}
        ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`),

    useLink: (id: string) => db.query(sql.unsafe`UPDATE password_links SET used_at = now() WHERE environment_id = ${environmentId} AND id = ${id}`),
  };
}
