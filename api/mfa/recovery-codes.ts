// Recovery codes for the sign-in pages: each works once, instead of a TOTP code; a user with an authenticator may
// replace the whole set. Only SHA-256 hashes are stored (lib/mfa/recovery-codes.ts).
import type { DatabasePool } from 'slonik';
import { hashRecoveryCode, newRecoveryCodes } from '../../lib/mfa/recovery-codes.ts';
import { createRecoveryCodeQueries } from '../../db/mfa/recovery-codes.ts';
import { createTotpFactorQueries } from '../../db/mfa/totp-factors.ts';
import { recordUser, refuse, type MfaCheck, type MfaEnv } from './context.ts';

export function createRecoveryCodeService(pool: DatabasePool) {
  return {
    /**
     * Uses one of the user's recovery codes (case, spaces and dashes ignored): ok with how many are left, once per
     * code even under concurrent requests. `replayed` for a code used before, `invalid` for one that is not the
     * user's, `not_enrolled` when the user has no codes. Emits `user.recovery_code_used`, or `user.mfa_failed`.
     */
    useRecoveryCode: async (env: MfaEnv, userId: string, code: string): Promise<MfaCheck<{ remaining: number }>> => {
      const hash = hashRecoveryCode(code);
      const outcome = await pool.transaction(async (trx) => {
        const codes = createRecoveryCodeQueries(trx, env.environmentId);
        if (!(await codes.use(userId, hash))) {
          if (await codes.wasUsed(userId, hash)) return { ok: false as const, reason: 'replayed' as const };
          return { ok: false as const, reason: (await codes.remaining(userId)) > 0 ? ('invalid' as const) : ('not_enrolled' as const) };
        }
        const remaining = await codes.remaining(userId);
        await recordUser(trx, env, userId, 'user.recovery_code_used', { type: 'user.recovery_code_used', data: { userId, remaining } });
        return { ok: true as const, remaining };
      });
      return outcome.ok ? outcome : refuse(pool, env, userId, 'recovery_code', 'verification', outcome.reason);
    },

    /**
     * Replaces the user's recovery codes with 10 new ones (shown once); the earlier ones stop working. Only for a
     * user with a confirmed authenticator (`not_enrolled` otherwise). Emits `user.recovery_codes_regenerated`.
     */
    regenerateRecoveryCodes: (env: MfaEnv, userId: string): Promise<{ ok: true; recoveryCodes: string[] } | { ok: false; reason: 'not_enrolled' }> =>
      pool.transaction(async (trx) => {
        if (!(await createTotpFactorQueries(trx, env.environmentId).confirmedOf(userId))) return { ok: false, reason: 'not_enrolled' };
        const recoveryCodes = newRecoveryCodes();
        await createRecoveryCodeQueries(trx, env.environmentId).replace(userId, recoveryCodes.map(hashRecoveryCode));
        await recordUser(trx, env, userId, 'user.recovery_codes_regenerated', {
          type: 'user.recovery_codes_regenerated',
          data: { userId, count: recoveryCodes.length },
        });
        return { ok: true, recoveryCodes };
      }),
  };
}
