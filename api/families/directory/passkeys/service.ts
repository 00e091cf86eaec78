// A directory user's passkeys through the management API: listed, renamed and removed by an administrator. Passkeys
// are registered by the user on the sign-in pages (api/passkeys), never through this API.
import type { DatabasePool } from 'slonik';
import { createDirectoryUserQueries } from '../../../../db/directory/users/queries.ts';
import { createPasskeyQueries } from '../../../../db/passkeys/queries.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { guardOperator } from '../../../access/protected-operators.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';
import { orNotFound } from '../../../errors.ts';

type Db = Parameters<typeof createPasskeyQueries>[0];

export function createPasskeyService(pool: DatabasePool) {
  /** The user's passkey, locked for a change; 404 for an unknown user or a passkey that is not theirs. */
  const passkeyForWrite = async (db: Db, caller: EnvironmentCaller, userId: string, passkeyId: string) => {
    const { environmentId } = caller.scope;
    await orNotFound(createDirectoryUserQueries(db, environmentId).findUser(userId, 'key share'), 'user', userId);
    const passkey = await orNotFound(createPasskeyQueries(db, environmentId).find(userId, passkeyId, true), 'passkey', passkeyId);
    await guardOperator(db, caller, userId);
    return passkey;
  };

  return {
    list: async (caller: EnvironmentCaller, userId: string, query: PageQuery) => {
      const { environmentId } = caller.scope;
      await orNotFound(createDirectoryUserQueries(pool, environmentId).findUser(userId), 'user', userId);
      return listPage('passkeys', query, (page) => createPasskeyQueries(pool, environmentId).pageOfUser(userId, page));
    },

    rename: (caller: EnvironmentCaller, userId: string, passkeyId: string, name: string) =>
      pool.transaction(async (trx) => {
        const before = await passkeyForWrite(trx, caller, userId, passkeyId);
        const passkey = (await createPasskeyQueries(trx, caller.scope.environmentId).rename(userId, passkeyId, name))!;
        await record(trx, caller, {
          action: 'user.passkey_renamed',
          resource: { type: 'passkey', id: passkeyId },
          before: { name: before.name },
          after: { name: passkey.name },
          event: { type: 'user.passkey_renamed', data: { userId, passkeyId, name: passkey.name, previousName: before.name } },
        });
        return { passkey };
      }),

    remove: (caller: EnvironmentCaller, userId: string, passkeyId: string) =>
      pool.transaction(async (trx) => {
        await passkeyForWrite(trx, caller, userId, passkeyId);
        const passkey = (await createPasskeyQueries(trx, caller.scope.environmentId).remove(userId, passkeyId))!;
        await record(trx, caller, {
          action: 'user.passkey_removed',
          resource: { type: 'passkey', id: passkeyId },
          before: { name: passkey.name, deviceType: passkey.deviceType, createdAt: passkey.createdAt, lastUsedAt: passkey.lastUsedAt },
          event: { type: 'user.passkey_removed', data: { userId, passkeyId, name: passkey.name } },
        });
        return { success: true as const, id: passkeyId };
      }),
  };
}

export type PasskeyService = ReturnType<typeof createPasskeyService>;
