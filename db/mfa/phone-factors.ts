// Users' phone factors (user_phone_factors, 0046): a number in E.164 that a texted code confirmed, one per user.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../shared/rows.ts';

const ts = (column: string) => sql.fragment`to_char(${sql.identifier([column])} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export const PhoneFactor = z.object({
  id: uuid,
  userId: uuid,
  phoneNumber: z.string(),
  createdAt: isoTimestamp,
  lastUsedAt: nullableTimestamp,
});
export type PhoneFactor = z.infer<typeof PhoneFactor>;

const columns = sql.fragment`id, user_id AS "userId", phone_number AS "phoneNumber", ${ts('created_at')} AS "createdAt", ${ts('last_used_at')} AS "lastUsedAt"`;

/** Phone factors of one environment: every statement is bound to `environmentId`. */
export function createPhoneFactorQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    of: (userId: string) =>
      db.maybeOne(sql.type(PhoneFactor)`SELECT ${columns} FROM user_phone_factors WHERE environment_id = ${environmentId} AND user_id = ${userId}`),

    /** The user's verified number: a new factor, or the number of the one they had (a new id: a new factor). */
    save: (userId: string, phoneNumber: string) =>
      db.one(sql.type(PhoneFactor)`
        INSERT INTO user_phone_factors (environment_id, user_id, phone_number) VALUES (${environmentId}, ${userId}, ${phoneNumber})
        ON CONFLICT (user_id) DO UPDATE SET id = gen_random_uuid(), phone_number = EXCLUDED.phone_number, created_at = now(), last_used_at = NULL
        RETURNING ${columns}`),

    markUsed: (userId: string) =>
      db.query(sql.unsafe`UPDATE user_phone_factors SET last_used_at = now() WHERE environment_id = ${environmentId} AND user_id = ${userId}`),

    remove: (userId: string, id: string) =>
      db.maybeOne(sql.type(PhoneFactor)`
        DELETE FROM user_phone_factors WHERE environment_id = ${environmentId} AND user_id = ${userId} AND id = ${id} RETURNING ${columns}`),
  };
}
