// TOTP for the sign-in pages: enrolment (a secret shown once as URI and QR code, confirmed by a code, which issues
// the recovery codes) and verification with replay protection (a code's time step must be above the last used).
import type { DatabasePool } from 'slonik';
import { decrypt, encrypt } from '../../lib/crypto.ts';
import { hashRecoveryCode, newRecoveryCodes } from '../../lib/mfa/recovery-codes.ts';
import { newTotpSecret, totpQrSvg, totpUri, verifyTotpCode } from '../../lib/mfa/totp.ts';
import { createDirectoryUserQueries } from '../../db/directory/users/queries.ts';
import { createRecoveryCodeQueries } from '../../db/mfa/recovery-codes.ts';
import { createTotpFactorQueries } from '../../db/mfa/totp-factors.ts';
import { conflict, orNotFound } from '../errors.ts';
import { recordUser, refuse, type MfaCheck, type MfaEnv } from './context.ts';

/** What a person needs to add the authenticator: the secret (to type), the otpauth:// URI and its QR code (SVG). */
export interface TotpEnrolment {
  factorId: string;
  secret: string;
  otpauthUri: string;
  qrSvg: string;
}

export const DEFAULT_TOTP_ISSUER = 'IAM';

export function createTotpService(pool: DatabasePool, masterKey: Buffer, now: () => number) {
  return {
    /**
     * Starts enrolling a TOTP authenticator for the user: a new unconfirmed factor (replacing an earlier unconfirmed
     * one). `issuer` is what the authenticator app shows (the environment's display name; default "IAM"), the label
     * the user's userName. 404 `user.not_found`; 409 `mfa.already_enrolled` when the user has a confirmed factor
     * (an administrator removes it first). Emits `user.mfa_enrolment_started`.
     */
    startTotpEnrolment: (env: MfaEnv, userId: string, options: { issuer?: string } = {}): Promise<TotpEnrolment> =>
      pool.transaction(async (trx) => {
        const user = await orNotFound(createDirectoryUserQueries(trx, env.environmentId).findUser(userId, 'update'), 'user', userId);
        const factors = createTotpFactorQueries(trx, env.environmentId);
        if (await factors.confirmedOf(userId)) throw conflict('mfa.already_enrolled', `User ${userId} already has a TOTP authenticator: remove it first.`);
        const secret = newTotpSecret();
        const { id: factorId, replaced } = await factors.replacePending(userId, encrypt(masterKey, secret));
        await recordUser(trx, env, userId, 'user.mfa_enrolment_started', {
          type: 'user.mfa_enrolment_started',
          data: { userId, factor: 'totp', factorId, replacedFactorId: replaced },
        });
        const otpauthUri = totpUri({ secret, issuer: options.issuer?.trim() || DEFAULT_TOTP_ISSUER, label: user.userName });
        return { factorId, secret, otpauthUri, qrSvg: await totpQrSvg(otpauthUri) };
      }),

    /**
     * Confirms the enrolment with a code from the authenticator: the factor becomes the user's, and 10 recovery
     * codes are answered (shown once: only their hashes are kept). `not_enrolled` when `factorId` is no pending
     * enrolment of the user (replaced, removed, or confirmed already). Emits `user.mfa_enrolled`, or `user.mfa_failed`.
     */
    confirmTotpEnrolment: async (env: MfaEnv, userId: string, factorId: string, code: string): Promise<MfaCheck<{ recoveryCodes: string[] }>> => {
      const outcome = await pool.transaction(async (trx) => {
        // The user's row serialises confirmation with a new enrolment (which then sees the confirmed factor).
        if (!(await createDirectoryUserQueries(trx, env.environmentId).findUser(userId, 'update')))
          return { ok: false as const, reason: 'not_enrolled' as const };
        const factors = createTotpFactorQueries(trx, env.environmentId);
        const pending = await factors.pendingForUpdate(userId, factorId);
        if (!pending) return { ok: false as const, reason: 'not_enrolled' as const };
        const step = verifyTotpCode(decrypt(masterKey, pending.secretEncrypted), code, { timestampMs: now() });
        if (step === null) return { ok: false as const, reason: 'invalid' as const };
        await factors.confirm(factorId, step);
        const recoveryCodes = newRecoveryCodes();
        await createRecoveryCodeQueries(trx, env.environmentId).replace(userId, recoveryCodes.map(hashRecoveryCode));
        await recordUser(trx, env, userId, 'user.mfa_enrolled', { type: 'user.mfa_enrolled', data: { userId, factor: 'totp', factorId } });
        return { ok: true as const, recoveryCodes };
      });
      return outcome.ok ? outcome : refuse(pool, env, userId, 'totp', 'enrolment', outcome.reason);
    },

    /**
     * Checks a code from the user's confirmed authenticator: ok once per time step. `invalid` (wrong, malformed, or
     * outside the ±1 step window), `replayed` (a step at or below the last one used: the same code twice, or an
     * older one), `not_enrolled` (no confirmed factor). A failure emits `user.mfa_failed`; success is the sign-in's
     * own event.
     */
    verifyTotp: async (env: MfaEnv, userId: string, code: string): Promise<MfaCheck> => {
      const factors = createTotpFactorQueries(pool, env.environmentId);
      const factor = await factors.confirmedOf(userId);
      if (!factor) return refuse(pool, env, userId, 'totp', 'verification', 'not_enrolled');
      const step = verifyTotpCode(decrypt(masterKey, factor.secretEncrypted), code, { timestampMs: now() });
      if (step === null) return refuse(pool, env, userId, 'totp', 'verification', 'invalid');
      if (!(await factors.useStep(factor.id, step))) return refuse(pool, env, userId, 'totp', 'verification', 'replayed');
      return { ok: true };
    },
  };
}
