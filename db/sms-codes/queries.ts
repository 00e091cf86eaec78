// The SMS codes of sign-ins (sign_in_sms_codes, 0046): one row per interaction, replaced by each new issue, for an
// enrolment (to a number being added) or a second factor (to the user's verified number); `purpose` keeps the one
// from passing as the other. Codes are stored as SHA-256 only.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { uuid } from '../shared/rows.ts';

export type SmsCodePurpose = 'enrolment' | 'second_factor';

const Code = z.object({
  id: uuid,
  userId: uuid,
  phoneNumber: z.string(),
  codeHash: z.instanceof(Buffer),
  attempts: z.number(),
  expired: z.boolean(),
  used: z.boolean(),
});
export type SmsCode = z.infer<typeof Code>;

export interface NewSmsCode {
  id: string;
  interactionUid: string;
  userId: string;
  phoneNumber: string;
  purpose: SmsCodePurpose;
  codeHash: Buffer;
  ttlSeconds: number;
}

const COLUMNS = sql.fragment`id, user_id AS "userId", phone_number AS "phoneNumber", code_hash AS "codeHash", attempts,
  expires_at <= now() AS expired, used_at IS NOT NULL AS used`;

/** Queries of one environment's sign-in SMS codes: every statement is bound to `environmentId`. */
export function createSmsCodeQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** Whether the interaction's last code was sent less than `seconds` ago (then no new one is sent). */
    sentWithin: async (interactionUid: string, seconds: number) =>
      (await db.maybeOneFirst(sql.type(z.object({ recent: z.boolean() }))`
        SELECT sent_at > now() - make_interval(secs => ${seconds}) AS recent FROM sign_in_sms_codes
        WHERE environment_id = ${environmentId} AND interaction_uid = ${interactionUid}`)) === true,

    /** Stores the interaction's code, replacing the previous one (attempts and use start over). */
    replace: (c: NewSmsCode) =>
      db.one(sql.type(z.object({ expiresAt: z.string() }))`
        INSERT INTO sign_in_sms_codes (id, environment_id, interaction_uid, user_id, phone_number, purpose, code_hash, expires_at)
        VALUES (${c.id}, ${environmentId}, ${c.interactionUid}, ${c.userId}, ${c.phoneNumber}, ${c.purpose}, ${sql.binary(c.codeHash)},
          now() + make_interval(secs => ${c.ttlSeconds}))
        ON CONFLICT (environment_id, interaction_uid) DO UPDATE SET id = EXCLUDED.id, user_id = EXCLUDED.user_id,
          phone_number = EXCLUDED.phone_number, purpose = EXCLUDED.purpose, code_hash = EXCLUDED.code_hash, attempts = 0,
          expires_at = EXCLUDED.expires_at, used_at = NULL, sent_at = now()
        RETURNING to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "expiresAt"`),

    /** The interaction's code for `purpose`, locked for the attempt. */
    find: (interactionUid: string, purpose: SmsCodePurpose) =>
      db.maybeOne(sql.type(Code)`
        SELECT ${COLUMNS} FROM sign_in_sms_codes
        WHERE environment_id = ${environmentId} AND interaction_uid = ${interactionUid} AND purpose = ${purpose} FOR UPDATE`),

    /** The number a code of `purpose` was texted to for `userId` at the interaction (the page then asks for it), or null. */
    sentTo: (interactionUid: string, purpose: SmsCodePurpose, userId: string) =>
      db.maybeOneFirst(sql.type(z.object({ phoneNumber: z.string() }))`
        SELECT phone_number AS "phoneNumber" FROM sign_in_sms_codes
        WHERE environment_id = ${environmentId} AND interaction_uid = ${interactionUid} AND purpose = ${purpose} AND user_id = ${userId}`),

    countAttempt: (id: string) =>
      db.query(sql.unsafe`UPDATE sign_in_sms_codes SET attempts = attempts + 1 WHERE environment_id = ${environmentId} AND id = ${id}`),

    markUsed: (id: string) => db.query(sql.unsafe`UPDATE sign_in_sms_codes SET used_at = now() WHERE environment_id = ${environmentId} AND id = ${id}`),

    /** Drops codes of ended sign-ins (expired a day ago), a bounded batch per call. */
    prune: () =>
      db.query(sql.unsafe`
        DELETE FROM sign_in_sms_codes WHERE id IN (
          SELECT id FROM sign_in_sms_codes WHERE environment_id = ${environmentId} AND expires_at < now() - interval '1 day' LIMIT 100)`),
  };
}
