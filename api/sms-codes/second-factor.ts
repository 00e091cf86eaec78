// A code texted as the SECOND factor of a sign-in (where the MFA settings turn `smsSecondFactor` on and an SMS
// provider is active): to the user's verified phone number, or to a number being enrolled (confirmed by the code, it
// becomes the user's phone factor). 6 digits stored as SHA-256 only, 10 minutes, 5 attempts, once; a new code
// replaces the previous one, at most one per 30 s per interaction; every text counts in the environment's hourly SMS
// rates (./pumping.ts). Sent through the sender port (channel `sms`, kind `sms_code`). A refusal is audited as
// `user.sign_in_failed` with `secondFactor: sms_code`; the success is recorded by the sign-in's own `user.signed_in`.
import { createHmac, randomUUID } from 'node:crypto';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { secretsEqual, sixDigitCode } from '../../lib/crypto.ts';
import type { MessageSender } from '../../lib/messages/sender.ts';
import type { EmailCodeFailureReason } from '../../db/email-codes/events.ts';
import { createMfaSettingsQueries } from '../../db/mfa/settings.ts';
import { createPhoneFactorQueries } from '../../db/mfa/phone-factors.ts';
import { smsAvailabilityOf } from '../../db/sms-codes/availability.ts';
import { createSmsCodeQueries, type SmsCode, type SmsCodePurpose } from '../../db/sms-codes/queries.ts';
import { createSmsSendQueries } from '../../db/sms-codes/sends.ts';
import { recordChange } from '../../db/shared/changes.ts';
import { snapshotOf } from '../oidc/providers.ts';
import type { Messages } from '../oidc/pages/i18n/index.ts';
import { localeOf } from '../messages/locale.ts';
import { codeHash, EMAIL_CODE_MAX_ATTEMPTS, EMAIL_CODE_RESEND_SECONDS, EMAIL_CODE_TTL_SECONDS, type EmailCodeSignIn } from '../email-codes/service.ts';
import { countryOf, phoneHint } from './phone.ts';
import { refuseOverRate } from './pumping.ts';

/** What a texted second factor adds to the first factor's amr (RFC 8176 `sms`). */
export const SMS_SECOND_FACTOR_AMR = ['sms', 'mfa'];

export type SmsIssue = { kind: 'sent' } | { kind: 'too_soon' } | { kind: 'rate_limited' };
export type SmsCheck = { ok: true } | { ok: false; reason: EmailCodeFailureReason };

const goneReason = (row: SmsCode): EmailCodeFailureReason | null =>
  row.used ? 'code_used' : row.expired ? 'code_expired' : row.attempts >= EMAIL_CODE_MAX_ATTEMPTS ? 'code_attempts_exhausted' : null;

export function createSmsSecondFactor(deps: {
  pool: DatabasePool;
  sender: MessageSender;
  masterKey: Buffer;
  log: { error(fields: object, message: string): void };
}) {
  const { pool } = deps;
  // Numbers are counted (and threats keyed) by an HMAC under the master key: a plain hash of a phone number is easily reversed.
  const numberKeyOf = (number: string) => createHmac('sha256', deps.masterKey).update(`sms-number:${number}`).digest();
  const scopeOf = (s: EmailCodeSignIn) => ({ tenantId: snapshotOf(s.provider).tenantId, environmentId: s.environmentId });

  const fail = async (trx: CommonQueryMethods, s: EmailCodeSignIn, userId: string, number: string, purpose: SmsCodePurpose, reason: EmailCodeFailureReason) => {
    const stage = purpose === 'enrolment' ? 'enrolment' : 'verification';
    await recordChange(trx, {
      actor: { type: 'user', id: userId },
      origin: s.origin,
      action: 'user.sign_in_failed',
      resource: { type: 'user', id: userId },
      scope: scopeOf(s),
      event: {
        type: 'user.sign_in_failed',
        data: { userId, login: number ? phoneHint(number) : '', clientId: s.clientId, reason, ip: s.origin.ip ?? null, secondFactor: 'sms_code', stage },
      },
    });
    return { ok: false as const, reason };
  };

  return {
    /** Whether codes may be texted in the environment, and to which countries. */
    availability: (environmentId: string) => smsAvailabilityOf(pool, environmentId),

    /** The user's verified phone factor, or null. */
    phoneOf: (environmentId: string, userId: string) => createPhoneFactorQueries(pool, environmentId).of(userId),

    /** The number a code of `purpose` was texted to for `userId` at this sign-in, or null. */
    sentTo: (s: EmailCodeSignIn, userId: string, purpose: SmsCodePurpose) => createSmsCodeQueries(pool, s.environmentId).sentTo(s.uid, purpose, userId),

    /**
     * Texts a code for `userId` at this sign-in to `phoneNumber` in the page's locale (`t`): `too_soon` (nothing sent)
     * within 30 s of the interaction's last text, `rate_limited` (nothing sent; evented, a threat) over a rate.
     */
    issue: async (s: EmailCodeSignIn, userId: string, phoneNumber: string, purpose: SmsCodePurpose, t: Messages): Promise<SmsIssue> => {
      const id = randomUUID();
      const code = sixDigitCode();
      const numberHash = numberKeyOf(phoneNumber);
      const hint = phoneHint(phoneNumber);
      const country = countryOf(phoneNumber);
      const issued = await pool.transaction(async (trx): Promise<SmsIssue> => {
        const sends = createSmsSendQueries(trx, s.environmentId);
        await sends.lock();
        const codes = createSmsCodeQueries(trx, s.environmentId);
        if (await codes.sentWithin(s.uid, EMAIL_CODE_RESEND_SECONDS)) return { kind: 'too_soon' };
        const { smsRateLimit: rate } = await createMfaSettingsQueries(trx, s.environmentId).find();
        const counts = await sends.lastHour(numberHash);
        const over: 'environment' | 'number' | null =
          counts.environment >= rate.perEnvironmentPerHour ? 'environment' : counts.number >= rate.perNumberPerHour ? 'number' : null;
        if (over) {
          const maxPerHour = over === 'environment' ? rate.perEnvironmentPerHour : rate.perNumberPerHour;
          const numberKey = numberHash.toString('hex');
          const refusal = { scope: scopeOf(s), origin: s.origin, userId, clientId: s.clientId, limit: over, maxPerHour, numberKey, country, purpose };
          await refuseOverRate(trx, { ...refusal, phoneNumberHint: hint });
          return { kind: 'rate_limited' };
        }
        await sends.add(numberHash);
        const row = await codes.replace({
          id,
          interactionUid: s.uid,
          userId,
          phoneNumber,
          purpose,
          codeHash: codeHash(code, id),
          ttlSeconds: EMAIL_CODE_TTL_SECONDS,
        });
        await codes.prune();
        await recordChange(trx, {
          actor: { type: 'user', id: userId },
          origin: s.origin,
          action: 'user.sms_code_sent',
          resource: { type: 'user', id: userId },
          scope: scopeOf(s),
          event: {
            type: 'user.sms_code_sent',
            data: { userId, clientId: s.clientId, phoneNumberHint: hint, country, purpose, expiresAt: row.expiresAt, ip: s.origin.ip ?? null },
          },
        });
        return { kind: 'sent' };
      });
      if (issued.kind !== 'sent') return issued;
      await deps.sender
        .send({ to: phoneNumber, template: 'sms_code', params: { code }, environmentId: s.environmentId, locale: localeOf(t) })
        .catch((error: unknown) => deps.log.error({ err: error, template: 'sms_code' }, 'message could not be sent'));
      return issued;
    },

    /**
     * Checks a typed code against the interaction's code of `purpose` for `userId`: ok (the code is used up; an
     * enrolment's number becomes the user's phone factor, `user.mfa_enrolled`), or why not (`wrong_code`, also when no
     * code was sent to this user here; `code_expired`, `code_used`, `code_attempts_exhausted`).
     */
    verify: (s: EmailCodeSignIn, userId: string, purpose: SmsCodePurpose, code: string): Promise<SmsCheck> =>
      pool.transaction(async (trx) => {
        const queries = createSmsCodeQueries(trx, s.environmentId);
        const row = await queries.find(s.uid, purpose);
        // A code of another user (another first factor at this interaction since) is no code of this one.
        if (!row || row.userId !== userId) return fail(trx, s, userId, '', purpose, 'wrong_code');
        const gone = goneReason(row);
        if (gone) return fail(trx, s, userId, row.phoneNumber, purpose, gone);
        const given = code.replace(/\s/g, '');
        if (!/^\d{6}$/.test(given) || !secretsEqual(codeHash(given, row.id), row.codeHash)) {
          await queries.countAttempt(row.id);
          return fail(trx, s, userId, row.phoneNumber, purpose, 'wrong_code');
        }
        await queries.markUsed(row.id);
        const phones = createPhoneFactorQueries(trx, s.environmentId);
        if (purpose === 'second_factor') {
          await phones.markUsed(userId);
          return { ok: true };
        }
        const factor = await phones.save(userId, row.phoneNumber);
        await phones.markUsed(userId);
        const data = {
          userId,
          factor: 'phone' as const,
          factorId: factor.id,
          phoneNumberHint: phoneHint(row.phoneNumber),
          country: countryOf(row.phoneNumber),
        };
        await recordChange(trx, {
          actor: { type: 'user', id: userId },
          origin: s.origin,
          action: 'user.mfa_enrolled',
          resource: { type: 'user', id: userId },
          scope: scopeOf(s),
          event: { type: 'user.mfa_enrolled', data },
        });
        return { ok: true };
      }),
  };
}

export type SmsSecondFactor = ReturnType<typeof createSmsSecondFactor>;
