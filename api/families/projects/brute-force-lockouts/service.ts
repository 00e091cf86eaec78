// The brute-force policy's current lockouts (api/protections/brute-force.ts), as operators see and end them.
import type { DatabasePool } from 'slonik';
import { createBruteForceQueries, type FailureKind } from '../../../../db/protections/brute-force-queries.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { notFound } from '../../../errors.ts';

export function createBruteForceLockoutService(pool: DatabasePool) {
  return {
    list: async (caller: EnvironmentCaller, filter: { userId?: string | undefined; kind?: FailureKind | undefined }) => {
      const lockouts = await createBruteForceQueries(pool, caller.scope.environmentId).lockouts(filter);
      return { lockouts: [...lockouts], total: lockouts.length };
    },

    /** Ends a current lockout: the key's count starts again, and the next attempt is let through to its password. */
    unlock: (caller: EnvironmentCaller, lockoutId: string) =>
      pool.transaction(async (trx) => {
        const lockout = await createBruteForceQueries(trx, caller.scope.environmentId).unlock(lockoutId);
        if (!lockout) throw notFound('brute_force_lockout', lockoutId);
        const { id, ...locked } = lockout;
        await record(trx, caller, {
          action: 'brute_force.unlock',
          resource: lockout.userId ? { type: 'user', id: lockout.userId } : { type: 'environment', id: caller.scope.environmentId },
          // `value`, not `key`: the audit log masks fields named like secrets (db/shared/changes.ts).
          before: { kind: lockout.kind, value: lockout.key, lockedUntil: lockout.lockedUntil },
          after: null,
          event: { type: 'brute_force.unlocked', data: { lockoutId: id, ...locked } },
        });
        return { lockout };
      }),
  };
}

export type BruteForceLockoutService = ReturnType<typeof createBruteForceLockoutService>;
