// A directory user's second factors as administrators see them (directory scope): the TOTP factor without its
// secret, how many recovery codes are left, and the reset that removes the factor (and, for an enrolled one, the
// recovery codes) so the user enrols again.
import type { DatabasePool } from 'slonik';
import { createDirectoryUserQueries } from '../../../../db/directory/users/queries.ts';
import { createRecoveryCodeQueries } from '../../../../db/mfa/recovery-codes.ts';
import { createTotpFactorQueries, type TotpFactor } from '../../../../db/mfa/totp-factors.ts';
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

export function createMfaFactorService(pool: DatabasePool) {
  return {
    list: async (caller: EnvironmentCaller, userId: string) => {
      const { environmentId } = caller.scope;
      await orNotFound(createDirectoryUserQueries(pool, environmentId).findUser(userId), 'user', userId);
      const [factors, recoveryCodesLeft] = await Promise.all([
        createTotpFactorQueries(pool, environmentId).factorsOf(userId),
        createRecoveryCodeQueries(pool, environmentId).remaining(userId),
      ]);
      return { factors: factors.map(view), recoveryCodesLeft };
    },

    remove: (caller: EnvironmentCaller, userId: string, factorId: string) =>
      pool.transaction(async (trx) => {
        const { environmentId } = caller.scope;
        await orNotFound(createDirectoryUserQueries(trx, environmentId).findUser(userId, 'update'), 'user', userId);
        await guardOperator(trx, caller, userId);
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
