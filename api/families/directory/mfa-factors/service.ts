// A directory user's second factors as administrators see them (directory scope): the TOTP factor without its
// secret, the verified phone number codes are texted to, how many recovery codes are left, and the reset that
// removes a factor (and, for an enrolled TOTP one, the recovery codes) so the user enrols again.
import type { DatabasePool } from 'slonik';
import { createDirectoryUserQueries } from '../../../../db/directory/users/queries.ts';
import { createRecoveryCodeQueries } from '../../../../db/mfa/recovery-codes.ts';
import { createTotpFactorQueries, type TotpFactor } from '../../../../db/mfa/totp-factors.ts';
import { createPhoneFactorQueries, type PhoneFactor } from '../../../../db/mfa/phone-factors.ts';
import { orNotFound } from '../../../errors.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { guardOperator } from '../../../access/protected-operators.ts';

const view = (f: TotpFactor) => ({
  id: f.id,
  type: 'totp' as const,
  confirmed: f.confirmedAt !== null,
  createdAt: f.createdAt,
  confirmedAt: f.confirmedAt,
  lastUsedAt: f.lastUsedAt,
});

const phoneView = (f: PhoneFactor) => ({
  id: f.id,
  type: 'phone' as const,
  confirmed: true,
  createdAt: f.createdAt,
  confirmedAt: f.createdAt,
  lastUsedAt: f.lastUsedAt,
  phoneNumber: f.phoneNumber,
});

export function createMfaFactorService(pool: DatabasePool) {
  return {
    list: async (caller: EnvironmentCaller, userId: string) => {
      const { environmentId } = caller.scope;
      await orNotFound(createDirectoryUserQueries(pool, environmentId).findUser(userId), 'user', userId);
      const [factors, phone, recoveryCodesLeft] = await Promise.all([
        createTotpFactorQueries(pool, environmentId).factorsOf(userId),
        createPhoneFactorQueries(pool, environmentId).of(userId),
        createRecoveryCodeQueries(pool, environmentId).remaining(userId),
      ]);
      return { factors: [...factors.map(view), ...(phone ? [phoneView(phone)] : [])], recoveryCodesLeft };
    },

    remove: (caller: EnvironmentCaller, userId: string, factorId: string) =>
      pool.transaction(async (trx) => {
        const { environmentId } = caller.scope;
        await orNotFound(createDirectoryUserQueries(trx, environmentId).findUser(userId, 'update'), 'user', userId);
        await guardOperator(trx, caller, userId);
        const phone = await createPhoneFactorQueries(trx, environmentId).remove(userId, factorId);
        if (phone) {
          await record(trx, caller, {
            action: 'user.mfa_removed',
            resource: { type: 'user', id: userId },
            before: phoneView(phone),
            event: { type: 'user.mfa_removed', data: { userId, factor: 'phone', factorId, confirmed: true, recoveryCodesRemoved: 0 } },
          });
          return;
        }
        const factor = await orNotFound(createTotpFactorQueries(trx, environmentId).remove(userId, factorId), 'mfa_factor', factorId);
        const confirmed = factor.confirmedAt !== null;
        const recoveryCodesRemoved = confirmed ? await createRecoveryCodeQueries(trx, environmentId).removeAll(userId) : 0;
        await record(trx, caller, {
          action: 'user.mfa_removed',
          resource: { type: 'user', id: userId },
          before: view(factor),
          event: { type: 'user.mfa_removed', data: { userId, factor: 'totp', factorId, confirmed, recoveryCodesRemoved } },
        });
      }),
  };
}

export type MfaFactorService = ReturnType<typeof createMfaFactorService>;
