// Connected apps: the consents users gave the environment's clients. Revoking one ends the grant and deletes the
// provider records issued under it in one transaction; the adapter reads Postgres on every look-up, so a token of
// the grant is inactive on every instance as soon as the transaction commits.
import type { DatabasePool } from 'slonik';
import { createConnectedAppQueries } from '../../../../db/oidc/connected-apps/queries.ts';
import { createDirectoryUserQueries } from '../../../../db/directory/users/queries.ts';
import { ApiError, orNotFound } from '../../../errors.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';
import type { ConnectedAppsQuery, RevokeConnectedAppBody } from './schemas.ts';

const noGrant = (body: RevokeConnectedAppBody) =>
  new ApiError(404, 'connected_app.not_found', `User ${body.userId} has no grant for client ${body.clientId} in this environment.`);

export function createConnectedAppService(pool: DatabasePool) {
  return {
    list: (caller: EnvironmentCaller, { clientId, userId, ...page }: ConnectedAppsQuery) =>
      listPage('grants', page, (p) => createConnectedAppQueries(pool, caller.scope.environmentId).findPage({ clientId, userId }, p)),

    listOfUser: async (caller: EnvironmentCaller, userId: string, page: PageQuery) => {
      const { environmentId } = caller.scope;
      await orNotFound(createDirectoryUserQueries(pool, environmentId).findUser(userId), 'user', userId);
      return listPage('grants', page, (p) => createConnectedAppQueries(pool, environmentId).findPage({ userId }, p));
    },

    revoke: (caller: EnvironmentCaller, body: RevokeConnectedAppBody) =>
      pool.transaction(async (trx) => {
        const apps = createConnectedAppQueries(trx, caller.scope.environmentId);
        const revoked = await apps.revoke(body.clientId, body.userId);
        const grant = await apps.find(body.clientId, body.userId);
        if (!grant) throw noGrant(body);
        // Revoked before: its records went then, and a second revocation records nothing.
        if (!revoked) return { success: true as const };
        await apps.deleteGrantRecords(body.clientId, body.userId, revoked.grantId);
        await record(trx, caller, {
          action: 'connected_app.revoke',
          resource: { type: 'oidc_client_grant', id: grant.id },
          before: { revokedAt: null },
          after: { revokedAt: grant.revokedAt },
          event: { type: 'connected_app.revoked', data: { grant } },
        });
        return { success: true as const };
      }),
  };
}

export type ConnectedAppService = ReturnType<typeof createConnectedAppService>;
