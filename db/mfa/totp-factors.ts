// Users' TOTP factors (0029). The secret is sealed with the master key by the service before it reaches these
// queries; the replay guard is the conditional update of `last_used_step`.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { nullableTimestamp, isoTimestamp, uuid } from '../shared/rows.ts';

const ts = (column: string) => sql.fragment`to_char(${sql.identifier([column])} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export const TotpFactor = z.object({
  id: uuid,
  userId: uuid,
  secretEncrypted: z.string(),
  confirmedAt: nullableTimestamp,
  lastUsedStep: z.coerce.number(),
  createdAt: isoTimestamp,
  lastUsedAt: nullableTimestamp,
});
export type TotpFactor = z.infer<typeof TotpFactor>;

const columns = sql.fragment`id, user_id AS "userId", secret_encrypted AS "secretEncrypted", ${ts('confirmed_at')} AS "confirmedAt",
  last_used_step AS "lastUsedStep", ${ts('created_at')} AS "createdAt", ${ts('last_used_at')} AS "lastUsedAt"`;
const Id = z.object({ id: uuid });

/** TOTP factors of one environment: every statement is bound to `environmentId`. */
export function createTotpFactorQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** The user's factors, the confirmed one first. */
    factorsOf: (userId: string) =>
      db.any(sql.type(TotpFactor)`
        SELECT ${columns} FROM user_totp_factors WHERE environment_id = ${environmentId} AND user_id = ${userId}
        ORDER BY confirmed_at IS NULL, created_at`),

    confirmedOf: (userId: string) =>
      db.maybeOne(sql.type(TotpFactor)`
        SELECT ${columns} FROM user_totp_factors
        WHERE environment_id = ${environmentId} AND user_id = ${userId} AND confirmed_at IS NOT NULL`),

    /** The user's unconfirmed factor `id`, locked. */
    pendingForUpdate: (userId: string, id: string) =>
      db.maybeOne(sql.type(TotpFactor)`
        SELECT ${columns} FROM user_totp_factors
        WHERE environment_id = ${environmentId} AND user_id = ${userId} AND id = ${id} AND confirmed_at IS NULL FOR UPDATE`),

    /** A new unconfirmed factor, replacing the user's earlier unconfirmed one (whose id is answered, if any). */
    replacePending: async (userId: string, secretEncrypted: string) => {
      const replaced = await db.maybeOneFirst(sql.type(Id)`
        DELETE FROM user_totp_factors WHERE environment_id = ${environmentId} AND user_id = ${userId} AND confirmed_at IS NULL RETURNING id`);
      const id = await db.oneFirst(sql.type(Id)`
        INSERT INTO user_totp_factors (user_id, environment_id, secret_encrypted) VALUES (${userId}, ${environmentId}, ${secretEncrypted}) RETURNING id`);
      return { id, replaced };
    },

    /** Confirms the unconfirmed factor with the step of the code that confirmed it (so that code cannot sign in). */
    confirm: (id: string, step: number) =>
      db.query(sql.unsafe`
        UPDATE user_totp_factors SET confirmed_at = now(), last_used_step = ${step}
        WHERE environment_id = ${environmentId} AND id = ${id} AND confirmed_at IS NULL`),

    /** Records a code of `step` as used: false when a code of this step or a later one was used (a replay). */
    useStep: async (id: string, step: number) =>
      (await db.maybeOneFirst(sql.type(Id)`
        UPDATE user_totp_factors SET last_used_step = ${step}, last_used_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id} AND confirmed_at IS NOT NULL AND last_used_step < ${step}
        RETURNING id`)) !== null,

    /** Deletes the user's factor `id`: what it was, or null. */
    remove: (userId: string, id: string) =>
      db.maybeOne(sql.type(TotpFactor)`
        DELETE FROM user_totp_factors WHERE environment_id = ${environmentId} AND user_id = ${userId} AND id = ${id} RETURNING ${columns}`),
  };
}
