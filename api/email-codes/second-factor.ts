// An emailed code as the SECOND factor of a sign-in (where the MFA settings turn it on): after a first factor, a
// 6-digit code goes to the user's verified email, with no link. The same store as the first factor's codes
// (sign_in_email_codes, `purpose` second_factor): SHA-256 only, 10 minutes, 5 attempts, once; a new code replaces the
// previous one, at most one per 30 s per interaction. A refusal is audited as `user.sign_in_failed` with its reason
// and `secondFactor: email_code`; the success is recorded by the sign-in's own `user.signed_in`.
import { randomBytes, randomUUID } from 'node:crypto';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { hashSecret, secretsEqual, sixDigitCode } from '../../lib/crypto.ts';
import type { MessageSender } from '../../lib/messages/sender.ts';
import { createEmailCodeQueries } from '../../db/email-codes/queries.ts';
import type { EmailCodeFailureReason } from '../../db/email-codes/events.ts';
import { createVerifiedEmailQueries } from '../../db/mfa/verified-email.ts';
import { recordChange } from '../../db/shared/changes.ts';
import { snapshotOf } from '../oidc/providers.ts';
import type { Messages } from '../oidc/pages/i18n/index.ts';
import { localeOf } from '../messages/locale.ts';
import { codeHash, EMAIL_CODE_RESEND_SECONDS, EMAIL_CODE_TTL_SECONDS, goneReason, type EmailCodeSignIn } from './service.ts';

/** What an emailed second factor adds to the first factor's amr (with `mfa`). */
export const EMAIL_SECOND_FACTOR_AMR = ['otp', 'email'];

export type SecondFactorIssue = { kind: 'sent' } | { kind: 'too_soon' } | { kind: 'no_email' };
export type SecondFactorCheck = { ok: true } | { ok: false; reason: EmailCodeFailureReason };

export function createEmailSecondFactor(deps: { pool: DatabasePool; sender: MessageSender; log: { error(fields: object, message: string): void } }) {
  const { pool } = deps;
  const scopeOf = (s: EmailCodeSignIn) => ({ tenantId: snapshotOf(s.provider).tenantId, environmentId: s.environmentId });

  const fail = async (
    trx: CommonQueryMethods,
    s: EmailCodeSignIn,
    userId: string,
    login: string,
    reason: EmailCodeFailureReason,
  ): Promise<SecondFactorCheck> => {
    await recordChange(trx, {
      actor: { type: 'user', id: userId },
      origin: s.origin,
      action: 'user.sign_in_failed',
      resource: { type: 'user', id: userId },
      scope: scopeOf(s),
      event: {
        type: 'user.sign_in_failed',
        data: { userId, login, clientId: s.clientId, reason, ip: s.origin.ip ?? null, secondFactor: 'email_code' },
      },
    });
    return { ok: false, reason };
  };

  return {
    /** The address the user's code would go to (their first verified email), or null: then it is not offered. */
    addressOf: (environmentId: string, userId: string) => createVerifiedEmailQueries(pool, environmentId).of(userId),

    /**
     * Issues a code for `userId` at this sign-in and sends it to their verified email in the page's locale (`t`);
     * `too_soon` (nothing issued) within 30 s of the interaction's last code, `no_email` when no email is verified.
     */
    issue: async (s: EmailCodeSignIn, userId: string, t: Messages): Promise<SecondFactorIssue> => {
      const email = await createVerifiedEmailQueries(pool, s.environmentId).of(userId);
      if (!email) return { kind: 'no_email' };
      const id = randomUUID();
      const code = sixDigitCode();
      const issued = await pool.transaction(async (trx) => {
        const row = await createEmailCodeQueries(trx, s.environmentId).replace(
          {
            id,
            interactionUid: s.uid,
            userId,
            login: email,
            codeHash: codeHash(code, id),
            // No link is sent for a second factor: the hash of a token nobody has.
            tokenHash: hashSecret(randomBytes(32).toString('base64url')),
            ttlSeconds: EMAIL_CODE_TTL_SECONDS,
            purpose: 'second_factor',
          },
          EMAIL_CODE_RESEND_SECONDS,
        );
        if (!row) return false;
        const data = { userId, clientId: s.clientId, email, expiresAt: row.expiresAt, ip: s.origin.ip ?? null, purpose: 'second_factor' as const };
        await recordChange(trx, {
          actor: { type: 'user', id: userId },
          origin: s.origin,
          action: 'user.email_code_sent',
          resource: { type: 'user', id: userId },
          scope: scopeOf(s),
          event: { type: 'user.email_code_sent', data },
        });
        return true;
      });
      if (!issued) return { kind: 'too_soon' };
      await deps.sender
        .send({ to: email, template: 'one_time_code', params: { code }, environmentId: s.environmentId, locale: localeOf(t) })
        .catch((error: unknown) => deps.log.error({ err: error, kind: 'sign_in_code' }, 'message could not be sent'));
      return { kind: 'sent' };
    },

    /**
     * Checks a typed code against the code of `userId` at this sign-in: ok (the code is used up), or why not
     * (`wrong_code`, also when no code was sent to this user here; `code_expired`, `code_used`, `code_attempts_exhausted`).
     */
    verify: (s: EmailCodeSignIn, userId: string, code: string): Promise<SecondFactorCheck> =>
      pool.transaction(async (trx) => {
        const queries = createEmailCodeQueries(trx, s.environmentId);
        const row = await queries.find(s.uid, 'second_factor');
        // A code of another user (another first factor at this interaction since) is no code of this one.
        if (!row || row.userId !== userId) return fail(trx, s, userId, '', 'wrong_code');
        const gone = goneReason(row);
        if (gone) return fail(trx, s, userId, row.login, gone);
        const given = code.replace(/\s/g, '');
        if (!/^\d{6}$/.test(given) || !secretsEqual(codeHash(given, row.id), row.codeHash)) {
          await queries.countAttempt(row.id);
          return fail(trx, s, userId, row.login, 'wrong_code');
        }
        await queries.markUsed(row.id);
        return { ok: true };
      }),
  };
}

export type EmailSecondFactor = ReturnType<typeof createEmailSecondFactor>;
